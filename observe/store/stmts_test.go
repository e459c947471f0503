package store_test

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/loomwork/loom/observe/internal/fixture"
	"github.com/loomwork/loom/observe/store"
	"github.com/stretchr/testify/require"
)

// TestStatementsPreparedOnDemand: the write statements are prepared as
// writes first need them (within the first write's transaction, then for
// the store). Writes of varied sizes, each needing a different mix of the
// upsert statements, store every run, in one store and across reopenings.
func TestStatementsPreparedOnDemand(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "traces.db")
	start := time.Now().Add(-time.Minute)
	seed := uint64(0)
	runs := func(n int) []store.Part {
		var rs []fixture.Run
		for range n {
			seed++
			rs = append(rs, fixture.Run{Seed: seed, Start: start.Add(time.Duration(seed) * time.Millisecond)})
		}
		return runParts(rs...)
	}
	total := 0
	for _, tc := range []struct {
		name   string
		writes []int // runs per write, in one store
	}{
		{"one run, as a one-shot writes", []int{1}},
		{"the same sizes again, in one store", []int{1, 1, 21, 21, 85}},
		{"a large write first", []int{85, 1, 21}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := store.Open(ctx, store.Config{Path: path})
			require.NoError(t, err)
			defer s.Close()
			for _, n := range tc.writes {
				require.NoError(t, s.WriteParts(ctx, runs(n)))
				total += n
				st, err := s.Stats(ctx, store.Query{})
				require.NoError(t, err)
				require.EqualValues(t, total, st.Traces, "after a write of %d runs", n)
			}
		})
	}
}
