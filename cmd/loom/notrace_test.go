package main

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/loomwork/loom/observe/store"
)

// TestRunNoTrace: loom run and resume record their runs in the trace store
// loom observe shows, as the example programs do, and --no-trace records
// nothing, as theirs does.
func TestRunNoTrace(t *testing.T) {
	fakeOpenAI(t)
	file := writeFile(t, "loom.yaml", coderYAML)
	traces := func(t *testing.T, args ...string) int {
		t.Helper()
		db := filepath.Join(t.TempDir(), "traces.db")
		t.Setenv("LOOM_TRACE_DB", db)
		cp := filepath.Join(t.TempDir(), "cp.db")
		res := call(t, false, "", append([]string{"run", file, "-i", "Calculate 15!", "--db", cp}, args...)...)
		require.Equal(t, exitWaiting, res.code, res.stderr)
		res = call(t, false, "", append([]string{"resume", strings.TrimSpace(res.stdout), "--approve", "--db", cp}, args...)...)
		require.Equal(t, 0, res.code, res.stderr)
		// A one-shot command spools its spans beside the database, which
		// the store's next Open reads in.
		_, dbErr := os.Stat(db)
		_, spoolErr := os.Stat(store.SpoolDir(db))
		if errors.Is(dbErr, os.ErrNotExist) && errors.Is(spoolErr, os.ErrNotExist) {
			return 0
		}
		st, err := store.Open(t.Context(), store.Config{Path: db})
		require.NoError(t, err)
		defer st.Close()
		page, err := st.Traces(t.Context(), store.Query{})
		require.NoError(t, err)
		return len(page.Traces)
	}
	require.Equal(t, 2, traces(t), "the run and its resume are traced")
	require.Zero(t, traces(t, "--no-trace"))
}

// TestEvalLogLevel: loom eval takes --log-level as loom run and the
// examples do, and refuses a level that is none.
func TestEvalLogLevel(t *testing.T) {
	o, err := parseEvalOptions([]string{"loom-tasks", "--log-level", "DEBUG"})
	require.NoError(t, err)
	require.Equal(t, "DEBUG", o.logLevel)
	o, err = parseEvalOptions([]string{"loom-tasks"})
	require.NoError(t, err)
	require.Equal(t, "WARN", o.logLevel, "the progress bar shares stderr: warnings only by default")
	var out, errs strings.Builder
	require.Equal(t, exitInvalid, run(t.Context(), []string{"eval", "--log-level", "LOUD"}, &out, &errs))
	require.Contains(t, errs.String(), "LOUD")
}
