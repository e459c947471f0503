package exampletest

import "github.com/loomwork/loom/internal/testkit"

// Children returns the pids of pid's running (not zombie) child processes,
// read from /proc.
func Children(pid int) []int { return testkit.Children(pid) }

// Alive reports whether pid is a running (not zombie) process.
func Alive(pid int) bool {
	state, _, ok := testkit.ProcStat(pid)
	return ok && state != "Z"
}
