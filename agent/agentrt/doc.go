// Package agentrt is the run-time side of package agent, for those who
// write compositions, engines and durable runners rather than agents:
//
//   - a run from the inside: an agent type's stream ([Execute]), its
//     events ([Emit]), nested runs with their whole end ([Child]), a
//     fan-out of them ([Fan], [Job], [FanOptions], [Outcome]) and the
//     questions they asked merged into one pause ([Interrupts]), a
//     conversation handed to a child ([ChildWithHistory], [History],
//     [SetMessages]), the run's explicit state ([State], [SetState]), the
//     parts of its result ([SetResultParts]) and its parent ([Parent]);
//   - resuming: the [Journal] a resumed run follows ([NewJournal],
//     [WithJournal]), [SkipEnded] for a composition that resumes from
//     its last ended step, answers checked against their questions
//     ([CheckAnswer]), errors saved as records ([ErrorRecordOf]) and
//     inputs encoded as agent.Invoke does ([EncodeInput]);
//   - the seams a durable engine replaces: the clock ([WithClock], [Now],
//     [Since]), the ids of root runs ([WithIDs]), the task runner of
//     fan-outs ([WithTaskRunner]);
//   - what a run tree has spent ([UsageFrom], [ReplayedFrom]);
//   - the telemetry switches: where spans and metrics go, whether content
//     is captured, telemetry off while a step replays.
//
// A program that builds and runs agents needs none of it: package agent
// has the agents (a user's own with
// [github.com/loomwork/loom/agent.New]),
// [github.com/loomwork/loom/agent.Invoke], the events and the limits of a
// run ([github.com/loomwork/loom/agent.WithLimits]). The engine (package
// engine) and the Temporal runner set what this package offers on the
// context of each run; observe sets the telemetry providers; the
// compositions (compose, graph, codeexec, spec, mcp) run their steps
// through the functions that take a run.
//
// The functions that take a run (an *agent.Run) must be called from the
// goroutine of that run's body, with the ctx the body received where
// they take one, as the body's own code would. The others travel on a
// context.Context: each With function returns a ctx for the runs started
// beneath it. Package agent's values answer what this package reads (a
// run's context answers from the run), so agent exports none of this
// plumbing.
package agentrt
