package worker

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/loomwork/loom/sandbox/internal/jsrt"
)

func TestMain(m *testing.M) {
	ServeWorkerIfChild()
	goleak.VerifyTestMain(m)
}

func newTestIsolated(t *testing.T, cfg jsrt.Config) *Isolated {
	t.Helper()
	e, err := NewIsolated(cfg)
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, e.Close()) })
	return e
}

// newSingleWorker is an executor with one worker, and that worker's PID.
func newSingleWorker(t *testing.T) (*Isolated, int) {
	t.Helper()
	e := newTestIsolated(t, jsrt.Config{Concurrency: 1})
	pids := e.PIDs()
	require.Len(t, pids, 1)
	return e, pids[0]
}

func requireWorks(t *testing.T, e *Isolated) {
	t.Helper()
	res, err := e.Run(context.Background(), `[1, 2, 3].map(x => x * 2)`)
	require.NoError(t, err)
	require.JSONEq(t, `[2,4,6]`, string(res.Value))
}
