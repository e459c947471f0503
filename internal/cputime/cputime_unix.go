//go:build unix

// Package cputime reads the CPU time the process has used, for benchmarks
// that report CPU time per op: on a busy machine it moves much less than
// wall time, and it counts the work of every goroutine an op starts.
package cputime

import (
	"syscall"
	"time"
)

// Process returns the user and system CPU time the process has used.
func Process() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
