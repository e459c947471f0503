// Package compose holds loom's composition agents: steps in sequence,
// branches in parallel, a map over items, reflection, routing, and a
// coordinator of specialised roles.
//
// # Composition
//
// Every composition is an [agent.Agent] built with [agent.New], so it can
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
// Every composition keeps its progress in its own run (see
// [agentrt.SetState]), not in ctx values or cancel causes, and a step
// that asks a question ([agent.Ask]) or halts ends the composition with
// that error, so an engine with a checkpoint store can resume it.
package compose
