// Package loadtest runs many code-execution workflows at once through the
// real OpenAI provider against a local server, on each sandbox, and checks
// that all succeed and that nothing (goroutines, worker processes) is left
// running after the executors are closed. It has only tests.
package loadtest
