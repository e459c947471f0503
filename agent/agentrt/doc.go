// Package agentrt is the run-time side of package agent, for those who
// write engines and durable runners rather than agents:
//
//   - resuming: the [Journal] a resumed run follows ([NewJournal],
//     [WithJournal]), and [SkipEnded] for a composition that resumes from
//     its last ended step;
//   - the seams a durable engine replaces: the clock ([WithClock], [Now],
//     [Since]), the ids of root runs ([WithIDs]), the task runner of
//     fan-outs ([WithTaskRunner]);
//   - what a run tree has spent ([UsageFrom], [ReplayedFrom]);
//   - the telemetry switches: where spans and metrics go, whether content
//     is captured, telemetry off while a step replays.
//
// A program that builds and runs agents needs none of it: package agent
// has the agents, [github.com/loomwork/loom/agent.Invoke], the events and
// the limits of a run ([github.com/loomwork/loom/agent.WithLimits]). The
// engine (package engine) and the Temporal runner set what this package
// offers on the context of each run; observe sets the telemetry providers.
//
// Everything here travels on a context.Context: each With function
// returns a ctx for the runs started beneath it. Package agent's values
// answer what this package reads (a run's context answers from the run),
// so agent exports none of this plumbing.
package agentrt
