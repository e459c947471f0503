//go:build !race

package worker

// RaceEnabled is true in binaries built with -race (see race_on.go).
const RaceEnabled = false
