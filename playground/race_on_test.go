//go:build race

package playground_test

// raceEnabled: under the race detector each isolated worker is the
// instrumented test binary, many times slower to start.
const raceEnabled = true
