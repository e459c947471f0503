//go:build unix

package worker

import (
	"os"
	"syscall"
)

// pollableStdio returns the worker's stdin and stdout as files on Go's
// poller. A worker inherits its pipes in blocking mode, and a read that
// blocks in the kernel keeps the worker's only P (GOMAXPROCS=1): the
// goroutine that sets up the next run's runtime after a reply could then
// start only once sysmon took the P back, often after the next request had
// come, which then set up a runtime of its own on the critical path.
// Non-blocking, a waiting read parks its goroutine and frees the P. The
// pipes are the worker's alone (the parent closed its copies of these
// ends). A descriptor that cannot be made non-blocking is used as it is.
func pollableStdio() (in, out *os.File) {
	in, out = os.Stdin, os.Stdout
	if syscall.SetNonblock(0, true) == nil {
		in = os.NewFile(0, "/dev/stdin")
	}
	if syscall.SetNonblock(1, true) == nil {
		out = os.NewFile(1, "/dev/stdout")
	}
	return in, out
}
