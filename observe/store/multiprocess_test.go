package store_test

import (
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/loomwork/loom/observe/store"
	"github.com/stretchr/testify/require"
)

// TestConcurrentProcesses runs two child processes (this test binary,
// re-executed) and this process writing to one database at once, then
// checks that every span and summary is there and the file is sound.
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
	exp, err := store.OpenExporter(ctx, path)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(goFile, nil, 0o600))
	require.NoError(t, writeRuns(ctx, exp, 5000, perWriter))
	for i, c := range children {
		require.NoError(t, c.Wait(), "child %d: %s", i, outputs[i])
	}

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
	// The writers' transactions interleaved: each writer's sequence numbers
	// span a range that overlaps another writer's.
	lo, hi := map[uint64]int64{}, map[uint64]int64{}
	for _, tr := range all {
		// fixture.IDs puts the seed in the low bits of the first half.
		first, err := strconv.ParseUint(tr.TraceID[:16], 16, 64)
		require.NoError(t, err)
		w := (first & 0xffff) / 1000
		if lo[w] == 0 || tr.Seq < lo[w] {
			lo[w] = tr.Seq
		}
		hi[w] = max(hi[w], tr.Seq)
	}
	require.Len(t, lo, 3)
	overlaps := 0
	for a := range lo {
		for b := range lo {
			if a < b && lo[a] < hi[b] && lo[b] < hi[a] {
				overlaps++
			}
		}
	}
	require.Positive(t, overlaps, "writers ran one after another: lo=%v hi=%v", lo, hi)
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
	var spans int
	require.NoError(t, db.QueryRow("SELECT count(*) FROM spans").Scan(&spans))
	require.Equal(t, 3*perWriter*6, spans)
	var counted int
	require.NoError(t, db.QueryRow("SELECT value FROM counters WHERE name = 'spans'").Scan(&counted))
	require.Equal(t, spans, counted)
}
