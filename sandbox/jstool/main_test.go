package jstool

import (
	"testing"

	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/loomwork/loom/sandbox"
)

func TestMain(m *testing.M) {
	sandbox.ServeWorkerIfChild()
	goleak.VerifyTestMain(m)
}

func newTestInProcess(t *testing.T, cfg sandbox.InProcessConfig) *sandbox.InProcess {
	t.Helper()
	e, err := sandbox.NewInProcess(cfg)
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, e.Close()) })
	return e
}

func newTestIsolated(t *testing.T, cfg sandbox.IsolatedConfig) *sandbox.Isolated {
	t.Helper()
	e, err := sandbox.NewIsolated(cfg)
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, e.Close()) })
	return e
}
