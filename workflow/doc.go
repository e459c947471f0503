// Package workflow runs agents and composes them: the [Engine] that gives
// every run a default model, limits, hooks, tracing, logging and usage
// totals; sessions with conversation [Memory]; composition agents
// ([Sequence], [Parallel], [Map], [Reflect], [Route], [Coordinator]); and
// [CodeExecution], the Coder→Sandbox workflow with its reviewer, approval
// gate and error handler.
//
// # The engine
//
// An [Engine] is the counterpart of the TypeScript framework's engine
// class. Each [Engine.Run] gets a fresh budget under the engine's limits
// (max agent invocations, max tokens, timeout; see [agent.Limits]), the
// default model for AI agents that have none, the engine's hooks, tracer
// provider and metrics, and yields the run's events as they happen.
// [Engine.Invoke] drains the same stream into a [Result] with the output
// and the run's usage; [InvokeAs] decodes the output into a Go type.
// [Engine.Stats] totals every run, safely under concurrent runs. The root
// run's span gets loom.workflow.outcome ("answered", "failed" or "limit"),
// also counted in the loom.workflow.outcomes metric.
//
// # Sessions and memory
//
// [Engine.NewSession] holds a multi-turn conversation. Before each turn the
// session's [Memory] returns the earlier turns, which reach the model as
// real user, assistant and tool messages, tool calls included (through
// [agent.WithHistory]); they are never flattened into the system prompt.
// [Buffer] keeps every turn; [Window] keeps the last N turns and sends the
// newest that fit a token budget, estimated by [EstimateTokens] (about four
// bytes per token) or a tokenizer of your choice. Memory is an interface so
// persistent or vector-backed stores can be plugged in.
//
// # Composition
//
// Every composition is an [agent.Agent] built on [agent.Execute], so it can
// be run by an engine, nested in another composition or given to an AI
// agent as a tool. Child runs are nested runs: their events appear in the
// parent's stream, their usage adds up, hooks fire and spans nest. Branches
// that run concurrently ([Parallel], [Map]) pass their events to the
// parent's goroutine as they happen, and no goroutine outlives a run.
//
//   - [Sequence]: steps in order; each gets the input merged with the
//     earlier outputs.
//   - [Parallel]: the same input to every branch, a concurrency cap, outputs
//     merged in branch order; the first error cancels the rest, or
//     CollectErrors reports them all in a [*BranchesError].
//   - [Map]: one run per element of an array field, with a concurrency cap.
//   - [Reflect]: a worker and a reviewer until approved, up to MaxRounds.
//   - [Route]: a model picks one agent ([agent.Router]); its answer is the
//     result.
//   - [Coordinator]: a planner splits the task; each subtask goes to a
//     coder, a reviewer, an executor and an error handler, with
//     disagreement bounded by MaxRounds and settled by an arbiter or a
//     policy.
//
// # Code execution
//
// [CodeExecution] is the Coder→Sandbox workflow: an AI coder, taught the
// sandbox's rules by [CoderInstructions], calls the evaluateJs tool, which
// runs on loom's isolated sandbox by default (worker processes: the
// program's main must call sandbox.ServeWorkerIfChild first) or on any
// [sandbox.Executor] given, such as the in-process one; each
// snippet passes an optional reviewer and an optional [Approver] before it
// runs, and a failed run goes through an error handler that writes a
// correction request. Every refusal and failure reaches the coder as the
// tool's error result, so the run ends with an answer; a retry budget
// bounds the attempts, and spending it ends the run with a
// [*RetriesError].
//
// # Logging
//
// [WithLogger] logs each run's start and end at DEBUG and every event at
// [LevelTrace], a level below DEBUG.
package workflow
