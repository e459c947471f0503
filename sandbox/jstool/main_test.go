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

func newTestInProcess(t *testing.T, opts ...sandbox.Option) *sandbox.InProcess {
	t.Helper()
	e, err := sandbox.NewInProcess(opts...)
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, e.Close()) })
	return e
}

func newTestIsolated(t *testing.T, opts ...sandbox.Option) *sandbox.Isolated {
	t.Helper()
	e, err := sandbox.NewIsolated(opts...)
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, e.Close()) })
	return e
}
