//go:build linux

package worker

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestWorkerStdioIsPollable: a worker reads its requests and writes its
// replies through Go's poller (its stdin and stdout are non-blocking), so
// that a read waiting for the next request never holds the worker's only
// P while the next run's runtime is set up.
func TestWorkerStdioIsPollable(t *testing.T) {
	e, pid := newSingleWorker(t)
	requireWorks(t, e)
	for fd := 0; fd <= 1; fd++ {
		raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/fdinfo/%d", pid, fd))
		require.NoError(t, err)
		flags := fdinfoFlags(t, string(raw))
		require.NotZero(t, flags&syscall.O_NONBLOCK, "fd %d of the worker: flags %o", fd, flags)
	}
}

// fdinfoFlags reads the flags line of /proc/PID/fdinfo/FD (octal).
func fdinfoFlags(t *testing.T, fdinfo string) int {
	t.Helper()
	for _, line := range strings.Split(fdinfo, "\n") {
		if v, ok := strings.CutPrefix(line, "flags:"); ok {
			n, err := strconv.ParseInt(strings.TrimSpace(v), 8, 64)
			require.NoError(t, err)
			return int(n)
		}
	}
	t.Fatalf("no flags in fdinfo %q", fdinfo)
	return 0
}
