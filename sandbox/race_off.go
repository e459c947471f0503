//go:build !race

package sandbox

// raceEnabled is true in binaries built with -race (see race_on.go).
const raceEnabled = false
