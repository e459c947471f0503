package pgvector_test

import (
	"context"
	"errors"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"github.com/loomwork/loom/vector"
	"github.com/loomwork/loom/vector/pgvector"
)

// TestBatchSettingsHoldForTheBatchAlone checks what a search relies on to
// send its settings and its query in one round trip: set_config(…, true)
// in a batch holds for the batch's later statements, which run in one
// implicit transaction up to the batch's Sync, and is gone after it, in
// the extended protocol and the simple one.
func TestBatchSettingsHoldForTheBatchAlone(t *testing.T) {
	ctx := context.Background()
	pool := testPool(t)
	for _, mode := range []pgx.QueryExecMode{pgx.QueryExecModeExec, pgx.QueryExecModeSimpleProtocol} {
		t.Run(mode.String(), func(t *testing.T) {
			cfg := pool.Config()
			cfg.ConnConfig.DefaultQueryExecMode = mode
			p, err := pgxpool.NewWithConfig(ctx, cfg)
			require.NoError(t, err)
			defer p.Close()
			var b pgx.Batch
			b.Queue(`SELECT set_config('hnsw.ef_search', $1, true)`, "77")
			b.Queue(`SELECT current_setting('hnsw.ef_search')`)
			br := p.SendBatch(ctx, &b)
			_, err = br.Exec()
			var inBatch string
			if err == nil {
				err = br.QueryRow().Scan(&inBatch)
			}
			require.NoError(t, errors.Join(err, br.Close()))
			require.Equal(t, "77", inBatch)

			var after string
			require.NoError(t, p.QueryRow(ctx, `SELECT current_setting('hnsw.ef_search')`).Scan(&after))
			require.Equal(t, "40", after, "the setting ended with the batch")
		})
	}

	// A search leaves no setting behind on the connection either.
	table := newTable(t, pool)
	s, err := pgvector.Open(ctx, pgvector.Config{Pool: pool, Table: table, Dimensions: 2, EFSearch: 123})
	require.NoError(t, err)
	defer s.Close()
	require.NoError(t, s.Upsert(ctx, vector.Document{ID: "a", Vector: []float32{1, 0}}))
	ms, err := s.Search(ctx, vector.Query{Vector: []float32{1, 0}, K: 5})
	require.NoError(t, err)
	require.Len(t, ms, 1, "fewer rows than K: the exact retry ran too")
	var ef, indexScan string
	require.NoError(t, pool.QueryRow(ctx, `SELECT current_setting('hnsw.ef_search'), current_setting('enable_indexscan')`).Scan(&ef, &indexScan))
	require.Equal(t, []string{"40", "on"}, []string{ef, indexScan})
}
