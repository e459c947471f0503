// Package graph runs stateful graphs of nodes over a typed state, in
// super-steps, with human-input nodes. A compiled graph is an
// [github.com/loomwork/loom/agent.Agent], so it nests in sequences, tools,
// sessions, servers and other graphs, and an engine saves and resumes it
// like any other agent.
//
// # State and writes
//
// The state S is a Go struct with a JSON form. A node reads a snapshot of
// it and returns the state it wants; the top-level JSON fields it changed
// are its writes, so a node cannot clobber a field it did not change.
// Only what encodes to JSON is state: a field tagged json:"-" is not kept
// between steps.
//
// # Steps
//
// A run is a series of super-steps. All the tasks a step activated run in
// the next step, concurrently (at most [Config.MaxParallel] at once,
// through the task-runner seam, [github.com/loomwork/loom/agent/agentrt.WithTaskRunner]). Their writes are
// applied when all have ended, in task order (by node name; a Send's tasks
// are "node#0", "node#1", ...), through each field's [Reducer]: [Replace],
// [Append], [Sum], [Merge] or [Custom]. Two writes to a field without a
// reducer fail the step with a [*WriteConflictError] naming the field and
// both nodes. Then edges ([Graph.Edge]), branches ([Graph.Branch]),
// dispatches ([Graph.Dispatch], LangGraph's Send) and joins ([Graph.Join])
// pick the next step's tasks. [Config.MaxSteps] bounds a run; reaching it
// is a [*StepLimitError] naming the looping nodes.
//
// # Durable runs: the engine's journal
//
// A graph keeps no checkpoints of its own. Each step is a nested run named
// "step" whose output is the state after it and the next tasks, and each
// task a nested run of the step; under an engine with a checkpoint store
// (engine.Config.Checkpoints) these runs are saved in the engine's journal as
// they end, like an AI's model calls and tool runs. A step's record holds
// the state and the next tasks, never the path taken, so its cost does not
// grow with the steps before it.
//
// A [Graph.Ask] node asks through [agent.Ask], and any node may too: an
// [Graph.AgentNode] whose agent waits for an approval (a Coder→Sandbox
// whose approver defers to a person) makes the graph wait with its
// question. The run ends with an [*agent.InterruptedError]; the engine's
// Pending lists the questions, from any process, and its Resume continues
// the run with the answers: steps and tasks that ended are replayed from
// the journal (on the same run ids), an Ask node gets its answer as its
// output, and an agent node's agent goes on where it asked without
// repeating its model calls or tool runs. A run whose process died is
// resumed the same way, without answers.
//
// Nodes are at least once: a node whose process dies before its task's
// end was saved runs again. Effects that must happen once go through
// [Once], a journaled nested run whose result is replayed on a re-run.
//
// # History
//
// The engine's History and Fork give time travel over any run; for a
// graph, [Compiled.History] reads the state after each step of a run, and
// [Compiled.EditState] is the fork option that continues a branch from an
// edited state. [Compiled.Mermaid] draws the graph.
//
// # Events
//
// A run's events show each step as a nested run named "step" (its input
// lists the tasks; its output is the state after it and the next tasks),
// and each task as a nested run of the step named for its node, whose
// output is its writes; a question is an [agent.EventInterrupt].
package graph
