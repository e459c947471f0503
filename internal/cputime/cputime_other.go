//go:build !unix

// Package cputime reads the CPU time the process has used, for benchmarks
// that report CPU time per op: on a busy machine it moves much less than
// wall time, and it counts the work of every goroutine an op starts.
package cputime

import "time"

// Process returns 0: the process's CPU time is not read on this system.
func Process() time.Duration { return 0 }
