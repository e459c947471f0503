//go:build !race

package playground_test

const raceEnabled = false
