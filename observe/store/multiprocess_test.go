package store_test

import (
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/loomwork/loom/observe/store"
	"github.com/stretchr/testify/require"
)

// TestConcurrentProcesses runs two child processes (this test binary,
// re-executed) and this process writing to one database at once, half the
// runs as rows of spans and half as parts, then checks that every span and
// summary is there and the file is sound.
func TestConcurrentProcesses(t *testing.T) {
	if testing.Short() {
		t.Skip("starts child processes")
	}
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "shared.db")
	const perWriter = 150

	goFile := filepath.Join(t.TempDir(), "go")
	var children []*exec.Cmd
	var outputs []*bytes.Buffer
	for i := range 2 {
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(),
			childDBEnv+"="+path,
			fmt.Sprintf("%s=%d", childSeedEnv, 1000*(i+1)),
			fmt.Sprintf("%s=%d", childCountEnv, perWriter),
			childGoEnv+"="+goFile)
		out := &bytes.Buffer{}
		cmd.Stdout, cmd.Stderr = out, out
		require.NoError(t, cmd.Start())
		children, outputs = append(children, cmd), append(outputs, out)
	}
	exp, err := store.OpenExporter(ctx, store.Config{Path: path})
	require.NoError(t, err)
	// Wait until both children have opened the database, then start all three.
	require.Eventually(t, func() bool {
		ready, _ := filepath.Glob(goFile + ".ready.*")
		return len(ready) == len(children)
	}, time.Minute, 5*time.Millisecond, "the children did not get ready")
	require.NoError(t, os.WriteFile(goFile, nil, 0o600))
	start := time.Now()
	require.NoError(t, writeRuns(ctx, exp, 5000, perWriter))
	windows := [][2]int64{{start.UnixNano(), time.Now().UnixNano()}}
	for i, c := range children {
		require.NoError(t, c.Wait(), "child %d: %s", i, outputs[i])
		var w [2]int64
		_, err := fmt.Sscanf(outputs[i].String(), "window %d %d", &w[0], &w[1])
		require.NoError(t, err, "child %d output: %s", i, outputs[i])
		windows = append(windows, w)
	}
	// The three writers were writing at the same time: their windows share
	// an instant. (SQLite serialises the transactions themselves; which
	// writer wins the lock is up to it, so their order is not checked.)
	latestStart, earliestEnd := windows[0][0], windows[0][1]
	for _, w := range windows {
		latestStart, earliestEnd = max(latestStart, w[0]), min(earliestEnd, w[1])
	}
	require.Less(t, latestStart, earliestEnd, "the writers did not overlap in time: %v", windows)

	s := exp.Store()
	var all []store.TraceSummary
	q := store.Query{Limit: store.MaxLimit}
	for {
		p, err := s.Traces(ctx, q)
		require.NoError(t, err)
		all = append(all, p.Traces...)
		if p.Next == "" {
			require.Equal(t, int64(3*perWriter), p.Seq, "one write sequence number per transaction, across processes")
			break
		}
		q.Before = p.Next
	}
	require.Len(t, all, 3*perWriter)
	for _, tr := range all {
		require.Equal(t, int64(6), tr.Spans, tr.TraceID)
		require.Equal(t, "ok", tr.Status)
		require.Equal(t, "coder", tr.Agent)
		require.Equal(t, int64(354), tr.TotalTokens)
	}
	require.NoError(t, exp.Shutdown(ctx))

	db, err := sql.Open("sqlite", "file:"+path)
	require.NoError(t, err)
	defer db.Close()
	var check string
	require.NoError(t, db.QueryRow("PRAGMA integrity_check").Scan(&check))
	require.Equal(t, "ok", check)
	var rows, inParts, parts int
	require.NoError(t, db.QueryRow("SELECT count(*) FROM spans").Scan(&rows))
	require.NoError(t, db.QueryRow("SELECT count(*), sum(span_count) FROM parts").Scan(&parts, &inParts))
	require.Equal(t, 3*perWriter/2, parts, "every other run is one part")
	spans := rows + inParts
	require.Equal(t, 3*perWriter*6, spans)
	var counted int
	require.NoError(t, db.QueryRow("SELECT value FROM counters WHERE name = 'spans'").Scan(&counted))
	require.Equal(t, spans, counted)
	var traces int
	require.NoError(t, db.QueryRow("SELECT value FROM counters WHERE name = 'traces'").Scan(&traces))
	require.Equal(t, 3*perWriter, traces)
}
