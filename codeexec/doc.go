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
// One snippet is one run of the sandbox tool: the reviewer and the
// approver are guardrails before the call and the error handler its
// OnError guard ([agent.GuardTool]), made for each run around the run's
// retry budget ([CodeState]), so the reviewer's run, the approval question
// and the sandbox's span all sit inside that one run.
//
// The same coder → reviewer → executor → error-handler loop has two other
// shapes in loom, on purpose, and all three share compose's pieces
// (Review and DecodeReview for a reviewer's verdict; Failure, Correct and
// NewErrorHandler for the correction request; RetriesError for a spent
// budget):
//   - here the coder drives: the sandbox is a tool it calls as often as it
//     likes within the budget, so review, approval and correction are
//     guards of that one tool call;
//   - compose.Coordinator drives the coder: the coder's output is a
//     solution, not a tool call, for each subtask of a plan; a reviewer
//     may send it back for rounds and an arbiter settle a disagreement
//     before an executor runs it: those are steps of a composition, which
//     no tool call makes;
//   - examples/graph-code-review spells the loop out as graph nodes, to
//     show a graph's branches, interrupts and checkpoints; it is a
//     teaching example, not a second implementation to use.
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
