// Package codeexec is the Coder→Sandbox workflow.
//
// [CodeExecution] (made by [New]) is the Coder→Sandbox workflow: an AI coder, taught the
// sandbox's rules by [CoderInstructions], calls the evaluateJs tool, which
// runs on loom's isolated sandbox by default (worker processes: the
// program's main must call sandbox.ServeWorkerIfChild first) or on any
// [sandbox.Executor] given, such as the in-process one; each
// snippet passes an optional reviewer and an optional [Approver] before it
// runs, and a failed run goes through an error handler that writes a
// correction request. Every refusal and failure reaches the coder as the
// tool's error result, so the run ends with an answer; a retry budget
// bounds the attempts, and spending it ends the run with a
// [*compose.RetriesError].
//
// [Config.SandboxTools] switches on code mode: the toolsets' tools are
// offered to the snippets as async functions (tools.name(args)), listed in
// the coder's instructions as TypeScript declarations, so one snippet can
// make several tool calls and compute with their results in place of one
// model turn per call.
//
// An [Approver] that answers [ErrPending] turns the snippet into a question
// of kind [ApprovalKind]: the run waits, and a person can approve or deny
// it hours later, from another process, by resuming the run through an
// engine with a checkpoint store; the approved code then runs once.
package codeexec
