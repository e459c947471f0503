// Package seamcheck holds a test that keeps a run's path deterministic: in
// the packages a run executes (agent, engine, compose, codeexec), time, randomness and
// goroutines are reached only through agent's seams (agent/seams.go), so
// that a durable engine can replace them.
package seamcheck
