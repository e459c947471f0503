// Package temporal runs loom agents as Temporal workflows, so that a run
// survives worker crashes, deploys and server restarts, scales out over
// many workers, and waits days for a person's approval.
//
// The split follows Temporal's own integrations. The agent's loop (the AI
// loop, compositions, the code-execution workflow) runs as workflow code on
// a context from [Context], which installs loom's seams from the workflow:
// the clock is workflow.Now, root run ids come from the workflow id,
// fan-outs start on workflow.Go and report through a queue awaited with
// workflow.Await, and the timeout limit is kept by workflow timers. What is
// not deterministic runs as activities:
//
//   - model calls, through [Model]: the history holds the model reference
//     and the new messages of each call, not the whole conversation; the
//     worker rebuilds the provider from its own factory ([Activities]), so
//     API keys never enter the history;
//   - sandbox runs and I/O tools, through [ActivityTool], with heartbeats,
//     a start-to-close timeout and a retry policy.
//
// Temporal owns retries: a provider's own retries should be off (see
// [Activities]); HTTP 408, 409, 429 and 5xx answers are retried (after the
// Retry-After the provider sent, which every provider's model.APIError
// carries), and other 4xx answers fail at once with the provider's message.
// Errors cross the activity boundary as [agent.ErrorRecord]s, so errors.Is
// still matches loom's sentinels on the workflow side.
//
// [Run] runs an agent in a workflow to its end: every question an agent
// asks ([agent.Ask], a code approval) waits for the [AnswerSignal] signal or
// the [AnswerUpdate] update, checked against the question's schema, and the
// [StatusQuery] query shows the pending questions and the run's events since
// a cursor. [Chat] is a long conversation that continues as new with a
// session snapshot when Temporal suggests it.
//
// Following a run from outside: poll [StatusQuery] with the cursor of the
// previous answer; each answer holds the events since. A query is served
// by a worker from the workflow's state after its last workflow task, so an
// event shows up once the workflow task that produced it completed (one
// round trip to the server and a worker per poll), and a model call's text
// arrives whole, when its activity completed, not token by token.
//
// The package lives in its own module, so loom's core does not depend on
// the Temporal SDK.
package temporal
