// Package agentrt is the run-time side of package agent, for those who
// write engines and durable runners rather than agents: the seams a
// durable engine replaces (the clock, the ids of root runs, the task
// runner of fan-outs) and the telemetry switches (where spans and metrics go,
// whether content is captured, telemetry off while a step replays).
//
// A program that builds and runs agents needs none of it: package agent
// has the agents, [github.com/loomwork/loom/agent.Invoke], the events and
// the limits of a run ([github.com/loomwork/loom/agent.WithLimits]). The
// engine (package engine) and the Temporal runner set what this package
// offers on the context of each run; observe sets the telemetry providers.
//
// Everything here travels on a context.Context: each With function
// returns a ctx for the runs started beneath it.
package agentrt
