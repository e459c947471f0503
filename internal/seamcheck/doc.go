// Package seamcheck holds a test that keeps a run's path deterministic: in
// the packages a run executes (agent, engine, compose, codeexec, graph,
// spec's run bodies, and the evaluateJs tool in sandbox/jstool, whose code
// mode serves a snippet's tool calls as nested runs), time, randomness and
// goroutines are reached only through agent's seams (agent/seams.go, the
// clock in agent/internal/clock, and the task runner in internal/taskrun),
// so that a durable engine can replace them.
package seamcheck
