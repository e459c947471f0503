package main

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/loomwork/loom/examples/internal/exampletest"
	"github.com/loomwork/loom/examples/internal/fakeopenai"
	"github.com/loomwork/loom/observe/store"
	"github.com/stretchr/testify/require"
)

// The example records its runs to the local trace store by default, so that
// `loom observe` shows them, and --no-trace turns that off.
func TestRunsAreRecordedForLoomObserve(t *testing.T) {
	srv := fakeopenai.New(t, coder)
	dir := t.TempDir() // the run's HOME and XDG_CACHE_HOME
	res := exampletest.RunIn(t, dir, bin, exampletest.OpenAIEnv(srv.BaseURL()), "", "-i", "Calculate 15!")
	require.Equal(t, 0, res.Code, "stderr: %s", res.Stderr)

	db := filepath.Join(dir, "loom", "traces.db")
	st, err := store.Open(context.Background(), store.Config{Path: db})
	require.NoError(t, err, "the run was recorded in the default store under the user cache directory")
	defer st.Close()
	page, err := st.Traces(context.Background(), store.Query{Limit: 10})
	require.NoError(t, err)
	require.Len(t, page.Traces, 1)
	tr := page.Traces[0]
	require.Equal(t, "code_execution", tr.Agent)
	require.Equal(t, "ok", tr.Status)
	require.Contains(t, tr.Input, "Calculate 15!")

	detail, err := st.Trace(context.Background(), tr.TraceID)
	require.NoError(t, err)
	var names []string
	var code string
	for _, s := range detail.Spans {
		names = append(names, s.Name)
		if s.Name == "sandbox.run" {
			code, _ = s.Attributes["loom.sandbox.code"].(string)
		}
	}
	require.Contains(t, names, "sandbox.run")
	require.Contains(t, names, "execute_tool evaluateJs")
	require.Contains(t, code, "let f = 1;", "the local store records the code the coder ran")

	// --no-trace records nothing.
	quiet := t.TempDir()
	res = exampletest.RunIn(t, quiet, bin, exampletest.OpenAIEnv(srv.BaseURL()), "", "--no-trace", "-i", "Calculate 15!")
	require.Equal(t, 0, res.Code, "stderr: %s", res.Stderr)
	_, err = os.Stat(filepath.Join(quiet, "loom", "traces.db"))
	require.ErrorIs(t, err, os.ErrNotExist)
}
