// Package graph runs stateful graphs of nodes over a typed state, with a
// checkpoint after every step, human-input nodes, resume without re-running
// the node that asked, and time travel. A compiled graph is an
// [github.com/loomwork/loom/agent.Agent], so it nests in sequences, tools,
// sessions, servers and other graphs.
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
// through the task-runner seam, [agent.WithTaskRunner]). Their writes are
// applied when all have ended, in task order (by node name; a Send's tasks
// are "node#0", "node#1", ...), through each field's [Reducer]: [Replace],
// [Append], [Sum], [Merge] or [Custom]. Two writes to a field without a
// reducer fail the step with a [*WriteConflictError] naming the field and
// both nodes. Then edges ([Graph.Edge]), branches ([Graph.Branch]),
// dispatches ([Graph.Dispatch], LangGraph's Send) and joins ([Graph.Join])
// pick the next step's tasks. [Config.MaxSteps] bounds a run; reaching it
// is a [*StepLimitError] naming the looping nodes.
//
// # Checkpoints, interrupts and resume
//
// Runs are keyed by a thread id ([WithThread]). A checkpoint (format
// [Format]) is saved to the [checkpoint.Store] after the input and after
// every step, and records the state, the next tasks, the writes of the
// tasks that finished in a step that did not complete (a failed node, a
// question), and the pending requests.
//
// A [Graph.Ask] node ends the run with an [*agent.InterruptedError]. Its
// question has a stable id; [Compiled.Resume] checks the answer against
// the question's schema and applies it as the node's output without
// running anything again, then continues. Resume claims the thread's head
// by compare-and-swap, so of two concurrent resumes exactly one advances
// and the other fails with [ErrAlreadyResumed]. A sub-graph
// ([SubGraph]) that asks is resumed from its own checkpoint, in the
// middle.
//
// Nodes run at least once: a node whose process dies re-runs. Effects
// that must happen once go through [Once], which saves each result before
// the node goes on and returns it on a re-run.
//
// A graph that waits is continued by [Compiled.Resume] on its thread, in
// this process or another, or by a durable engine's resume of the run the
// graph belongs to (as its agent or nested in it): the engine replays its
// journal down to the graph, which goes on from its own checkpoint with
// the answers the engine was given.
//
// # History
//
// [Compiled.History] lists a thread's checkpoints, [Compiled.StateAt] reads
// one, and [Compiled.Fork] starts a new thread from any of them, leaving
// the original intact. [Compiled.Mermaid] draws the graph.
//
// # Events
//
// A run's events show each step as a nested run named "step" (its input
// lists the tasks; its output the checkpoint, status and next tasks), and
// each task as a nested run of the step named for its node, whose output
// is its writes; a question is an [agent.EventInterrupt].
package graph
