package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/loomwork/loom/observe/store"
	"github.com/stretchr/testify/require"
)

// A run killed with SIGKILL keeps what its tracing had written: the
// example spools its spans (it does not open the trace database), the
// spans that ended while the run went on are in its spool file, and the
// next program that opens the database (loom observe) shows them as a
// run that never finished.
func TestKilledRunKeepsItsFlushedSpans(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "loom", "traces.db")
	spoolDir := store.SpoolDir(db)
	cmd, _, _, _ := looping(t, dir)
	// The first model call has ended; its span is written within a batch
	// interval of loom's tracer provider while the snippet loops.
	require.Eventually(t, func() bool {
		entries, _ := os.ReadDir(spoolDir)
		for _, e := range entries {
			if info, err := e.Info(); err == nil && strings.HasSuffix(e.Name(), ".live") && info.Size() > 0 {
				return true
			}
		}
		return false
	}, 30*time.Second, 20*time.Millisecond, "the running example spooled nothing")
	_, err := os.Stat(db)
	require.ErrorIs(t, err, os.ErrNotExist, "the example does not open the database")

	require.NoError(t, cmd.Process.Signal(syscall.SIGKILL))
	require.Equal(t, -1, wait(t, cmd), "killed by the signal")

	ctx := context.Background()
	st, err := store.Open(ctx, store.Config{Path: db})
	require.NoError(t, err)
	defer st.Close()
	page, err := st.Traces(ctx, store.Query{})
	require.NoError(t, err)
	require.Len(t, page.Traces, 1)
	require.Equal(t, store.StatusRunning, page.Traces[0].Status, "the run never ended")
	detail, err := st.Trace(ctx, page.Traces[0].TraceID)
	require.NoError(t, err)
	var names []string
	for _, s := range detail.Spans {
		names = append(names, s.Name)
	}
	require.Contains(t, strings.Join(names, "\n"), "chat ", "the finished model call is kept")
	left, err := os.ReadDir(spoolDir)
	require.NoError(t, err)
	require.Empty(t, left, "the dead run's spool file was stored and removed")
}
