package pgvector_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"github.com/loomwork/loom/vector"
	"github.com/loomwork/loom/vector/pgvector"
)

// TestIterativeIndexScan shows why the store turns pgvector's iterative
// index scan on: with the HNSW index forced (the planner may instead choose
// a sequential scan or the GIN index on the metadata, both exact), the
// store's query shape with a
// filter matching 1% of the rows loses rows without the iterative scan and
// returns K with it. The store's own search returns K either way.
func TestIterativeIndexScan(t *testing.T) {
	pool := testPool(t)
	ctx := context.Background()
	table := newTable(t, pool)
	s, err := pgvector.Open(ctx, pgvector.Config{Pool: pool, Table: table, Dimensions: 8})
	require.NoError(t, err)
	defer s.Close()
	docs := make([]vector.Document, 0, 2000)
	for i := range 2000 {
		// Distinct vectors, spread evenly: an HNSW graph over many exact
		// duplicates can leave rows no scan reaches, and then even the
		// iterative scan returns fewer than K.
		v := make([]float32, 8)
		for j := range v {
			v[j] = float32(uint32((i+1)*(j+3))*2654435761%1000)/100 + 1
		}
		group := "common"
		if i%100 == 0 {
			group = "rare"
		}
		docs = append(docs, vector.Document{ID: fmt.Sprint(i), Text: "x", Vector: v, Metadata: map[string]any{"group": group}})
	}
	require.NoError(t, s.Upsert(ctx, docs...))
	// The store's query shape, run with and without the iterative scan:
	// without it the index hands over ef_search candidates, of which about
	// 1% pass the filter; with it the scan continues until K rows pass.
	query := `SELECT id FROM ` + table + ` WHERE metadata @@ '$."group" == "rare"'::jsonpath
ORDER BY embedding <=> '[1,2,3,4,5,6,7,8]'::vector LIMIT 4`
	run := func(iterative string) (plan, ids []string) {
		err := pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
			if _, err := tx.Exec(ctx, `SELECT set_config('hnsw.iterative_scan', $1, true), set_config('enable_seqscan', 'off', true), set_config('enable_bitmapscan', 'off', true)`, iterative); err != nil {
				return err
			}
			rows, err := tx.Query(ctx, "EXPLAIN "+query)
			if err != nil {
				return err
			}
			if plan, err = pgx.CollectRows(rows, pgx.RowTo[string]); err != nil {
				return err
			}
			rows, err = tx.Query(ctx, query)
			if err != nil {
				return err
			}
			ids, err = pgx.CollectRows(rows, pgx.RowTo[string])
			return err
		})
		require.NoError(t, err)
		return plan, ids
	}
	plan, ids := run("relaxed_order")
	require.Contains(t, strings.Join(plan, "\n"), "Index Scan using "+table+"_embedding_idx", "plan:\n%s", strings.Join(plan, "\n"))
	require.Len(t, ids, 4, "the iterative index scan finds K filtered rows")
	_, ids = run("off")
	require.Less(t, len(ids), 4, "without the iterative scan the filtered index scan loses rows (the reason the store turns it on)")

	ms, err := s.Search(ctx, vector.Query{Vector: docs[1].Vector, K: 4, Filter: vector.Eq("group", "rare")})
	require.NoError(t, err)
	require.Len(t, ms, 4)
	for _, m := range ms {
		require.Equal(t, "rare", m.Metadata["group"])
	}
}

// TestFilterLiteralsReachPostgres checks that keys and values that need
// escaping in an SQL/JSON path match as written.
func TestFilterLiteralsReachPostgres(t *testing.T) {
	pool := testPool(t)
	ctx := context.Background()
	s, err := pgvector.Open(ctx, pgvector.Config{Pool: pool, Table: newTable(t, pool), Dimensions: 2})
	require.NoError(t, err)
	defer s.Close()
	key := `we"ird\key $.x`
	require.NoError(t, s.Upsert(ctx,
		vector.Document{ID: "a", Text: "a", Vector: []float32{1, 0}, Metadata: map[string]any{key: "it's \"quoted\"\n<é>", "big": 1e21}},
		vector.Document{ID: "b", Text: "b", Vector: []float32{0, 1}, Metadata: map[string]any{key: "other", "big": -0.5}},
	))
	for _, f := range []*vector.Filter{
		vector.Eq(key, "it's \"quoted\"\n<é>"),
		vector.Eq("big", 1e21),
		vector.Gt("big", 1e20),
		vector.In(key, "nope", "it's \"quoted\"\n<é>"),
	} {
		ms, err := s.Search(ctx, vector.Query{Vector: []float32{0, 1}, K: 5, Filter: f})
		require.NoError(t, err)
		require.Len(t, ms, 1, "filter %+v", f)
		require.Equal(t, "a", ms[0].ID)
	}
	ms, err := s.Search(ctx, vector.Query{Vector: []float32{1, 0}, K: 5, Filter: vector.Lt("big", 0)})
	require.NoError(t, err)
	require.Len(t, ms, 1)
	require.Equal(t, "b", ms[0].ID)
}
