package main

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/loomwork/loom/observe/store"
	"github.com/stretchr/testify/require"
)

// loom run records its run as the examples do: to the trace store's spool
// (it does not open the trace database), and loom observe, which opens
// the database, shows it.
func TestRunIsTracedThroughTheSpool(t *testing.T) {
	fakeOpenAI(t)
	traces := filepath.Join(t.TempDir(), "traces.db")
	t.Setenv(store.PathEnv, traces)
	file := writeFile(t, "loom.yaml", coderYAML)
	res := call(t, true, "y\n", "run", file, "-i", "Calculate 15!", "--db", filepath.Join(t.TempDir(), "cp.db"))
	require.Equal(t, 0, res.code, res.stderr)
	require.NotContains(t, res.stderr, "not traced")

	_, err := os.Stat(traces)
	require.ErrorIs(t, err, os.ErrNotExist, "the run did not open the trace database")
	spooled, err := os.ReadDir(store.SpoolDir(traces))
	require.NoError(t, err)
	require.Len(t, spooled, 1)

	ctx := context.Background()
	st, err := store.Open(ctx, store.Config{Path: traces})
	require.NoError(t, err)
	defer st.Close()
	page, err := st.Traces(ctx, store.Query{})
	require.NoError(t, err)
	// The approval on the terminal paused the run and went on: two parts
	// of one run, the first shown as continued.
	require.Len(t, page.Traces, 2)
	done, paused := page.Traces[0], page.Traces[1]
	require.Equal(t, "ok", done.Status)
	require.Equal(t, "continued", paused.Status)
	require.Equal(t, done.RunID, paused.RunID)
	require.Contains(t, done.Input, "Calculate 15!")
	require.Contains(t, done.Output, "1307674368000")
	require.Positive(t, done.ModelCalls)
}
