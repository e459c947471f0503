package worker

import (
	"context"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/loomwork/loom/sandbox/internal/jsrt"
)

// TestIsolatedIdleWorkerDies kills an idle worker: the next run gets a
// fresh one.
func TestIsolatedIdleWorkerDies(t *testing.T) {
	e, pid := newSingleWorker(t)
	e.mu.Lock()
	var w *worker
	for w = range e.live {
	}
	e.mu.Unlock()
	require.NoError(t, syscall.Kill(pid, syscall.SIGKILL))
	select {
	case <-w.exited: // reaped: the pool sees it is dead
	case <-time.After(time.Minute):
		t.Fatal("the killed worker was never reaped")
	}
	requireWorks(t, e)
}

func TestCgroupDetection(t *testing.T) {
	dir := findCgroupParent("")
	if dir == "" {
		t.Skip("no delegated cgroup v2 with the memory controller here: workers use RLIMIT_AS")
	}
	e := newTestIsolated(t, jsrt.Config{Concurrency: 1, Limits: jsrt.Limits{Memory: 32 << 20}})
	require.Equal(t, "cgroup", e.MemoryEnforcement())
	_, err := e.Run(context.Background(), `'x'.repeat(2**30).length`)
	require.ErrorIs(t, err, jsrt.ErrMemoryLimit)
	requireWorks(t, e)
}
