package pgvector_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/loomwork/loom/vector"
	"github.com/loomwork/loom/vector/pgvector"
)

// BenchmarkSearch times one search of 1000 vectors of 256 dimensions: by
// the HNSW index, by the index with a filter matching 1% of the rows, and
// exactly. On PGlite (PostgreSQL in WASM) the figures are for the record
// only; a native server is much faster.
func BenchmarkSearch(b *testing.B) {
	const n, dims = 1000, 256
	pool := testPool(b)
	ctx := context.Background()
	r := rand.New(rand.NewPCG(1, 2))
	docs := make([]vector.Document, n)
	for i := range docs {
		v := make([]float32, dims)
		for j := range v {
			v[j] = float32(r.NormFloat64())
		}
		group := "common"
		if i%100 == 0 {
			group = "rare"
		}
		docs[i] = vector.Document{ID: fmt.Sprint(i), Text: "doc", Vector: v, Metadata: map[string]any{"group": group, "i": i}}
	}
	table := newTable(b, pool)
	s, err := pgvector.Open(ctx, pgvector.Config{Pool: pool, Table: table, Dimensions: dims})
	require.NoError(b, err)
	defer s.Close()
	require.NoError(b, s.Upsert(ctx, docs...))
	exact, err := pgvector.Open(ctx, pgvector.Config{Pool: pool, Table: table, Dimensions: dims, Exact: true})
	require.NoError(b, err)
	defer exact.Close()
	for _, bc := range []struct {
		name  string
		store *pgvector.Store
		f     *vector.Filter
	}{
		{"hnsw", s, nil},
		{"hnsw_filter_1pct", s, vector.Eq("group", "rare")},
		{"exact", exact, nil},
	} {
		b.Run(bc.name, func(b *testing.B) {
			i := 0
			for b.Loop() {
				ms, err := bc.store.Search(ctx, vector.Query{Vector: docs[i%n].Vector, K: 10, Filter: bc.f})
				if err != nil || len(ms) != 10 {
					b.Fatalf("search: %d matches, %v", len(ms), err)
				}
				i++
			}
		})
	}
}
