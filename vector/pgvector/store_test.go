package pgvector_test

import (
	"context"
	"fmt"
	"os"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"github.com/loomwork/loom/vector"
	"github.com/loomwork/loom/vector/pgvector"
	"github.com/loomwork/loom/vector/vectortest"
)

// dsnEnv names the server the tests run against; .ci/vector.sh starts
// PGlite with pgvector and sets it.
const dsnEnv = "LOOM_TEST_PGVECTOR_DSN"

// testPool connects to the test server, or skips the test when there is
// none, except in CI, where a missing server is a failure. PGlite runs
// every connection on one backend session, which keeps prepared statements
// across connections, so the pool has one connection and prepares no named
// statements.
func testPool(t testing.TB) *pgxpool.Pool {
	t.Helper()
	dsn := os.Getenv(dsnEnv)
	if dsn == "" {
		if os.Getenv("CI") == "true" {
			t.Fatalf("%s is not set: CI must start PostgreSQL with pgvector (.ci/vector.sh)", dsnEnv)
		}
		t.Skipf("%s is not set; run .ci/vector.sh to start PGlite with pgvector", dsnEnv)
	}
	cfg, err := pgxpool.ParseConfig(dsn)
	require.NoError(t, err)
	cfg.MaxConns = 1
	cfg.ConnConfig.DefaultQueryExecMode = pgx.QueryExecModeExec
	pool, err := pgxpool.NewWithConfig(context.Background(), cfg)
	require.NoError(t, err)
	t.Cleanup(pool.Close)
	return pool
}

var tables atomic.Int64

// newTable returns a table name no other test uses, and drops it when t
// ends.
func newTable(t testing.TB, pool *pgxpool.Pool) string {
	t.Helper()
	name := fmt.Sprintf("loomtest_%d_%d", os.Getpid(), tables.Add(1))
	t.Cleanup(func() {
		_, err := pool.Exec(context.Background(), "DROP TABLE IF EXISTS "+name)
		require.NoError(t, err)
	})
	return name
}

func TestConformance(t *testing.T) {
	pool := testPool(t)
	ctx := context.Background()
	open := func(t *testing.T, dims int) vector.Store {
		s, err := pgvector.Open(ctx, pgvector.Config{Pool: pool, Table: newTable(t, pool), Dimensions: dims, Embedder: vectortest.Embedder(dims)})
		require.NoError(t, err)
		return s
	}
	reopen := func(t *testing.T, s vector.Store) vector.Store {
		table := s.(*pgvector.Store).Table()
		require.NoError(t, s.Close())
		s2, err := pgvector.Open(ctx, pgvector.Config{Pool: pool, Table: table, Dimensions: vectortest.Dims, Embedder: vectortest.Embedder(vectortest.Dims)})
		require.NoError(t, err)
		return s2
	}
	vectortest.Run(t, open, vectortest.Options{Reopen: reopen})
}

func TestConformanceExact(t *testing.T) {
	pool := testPool(t)
	open := func(t *testing.T, dims int) vector.Store {
		s, err := pgvector.Open(context.Background(), pgvector.Config{Pool: pool, Table: newTable(t, pool), Dimensions: dims, Embedder: vectortest.Embedder(dims), Exact: true})
		require.NoError(t, err)
		return s
	}
	vectortest.Run(t, open, vectortest.Options{})
}

func TestOpenChecksTheTable(t *testing.T) {
	pool := testPool(t)
	ctx := context.Background()
	table := newTable(t, pool)
	s, err := pgvector.Open(ctx, pgvector.Config{Pool: pool, Table: table, Dimensions: 3})
	require.NoError(t, err)
	require.NoError(t, s.Close())

	_, err = pgvector.Open(ctx, pgvector.Config{Pool: pool, Table: table, Dimensions: 4})
	require.ErrorIs(t, err, vector.ErrDimension)
	require.ErrorContains(t, err, "3")
	require.ErrorContains(t, err, "4")

	var indexes []string
	rows, err := pool.Query(ctx, `SELECT indexdef FROM pg_indexes WHERE tablename = $1 ORDER BY indexname`, table)
	require.NoError(t, err)
	for rows.Next() {
		var def string
		require.NoError(t, rows.Scan(&def))
		indexes = append(indexes, def)
	}
	require.NoError(t, rows.Err())
	joined := strings.Join(indexes, "\n")
	require.Contains(t, joined, "USING hnsw (embedding vector_cosine_ops)")
	require.Contains(t, joined, "USING gin (metadata jsonb_path_ops)")
}

func TestTextNeedsAnEmbedder(t *testing.T) {
	pool := testPool(t)
	ctx := context.Background()
	s, err := pgvector.Open(ctx, pgvector.Config{Pool: pool, Table: newTable(t, pool), Dimensions: 3})
	require.NoError(t, err)
	defer s.Close()
	require.ErrorIs(t, s.Upsert(ctx, vector.Document{ID: "a", Text: "words"}), vector.ErrNoEmbedder)
	_, err = s.Search(ctx, vector.Query{Text: "words"})
	require.ErrorIs(t, err, vector.ErrNoEmbedder)
}

// TestExactTableHasNoHNSWIndex checks that a table an Exact store creates
// has no HNSW index, and that opening it without Exact creates one.
func TestExactTableHasNoHNSWIndex(t *testing.T) {
	ctx := context.Background()
	pool := testPool(t)
	table := newTable(t, pool)
	hnsw := func() bool {
		var n int
		require.NoError(t, pool.QueryRow(ctx, `SELECT count(*) FROM pg_indexes WHERE tablename = $1 AND indexdef LIKE '%USING hnsw%'`, table).Scan(&n))
		return n == 1
	}
	s, err := pgvector.Open(ctx, pgvector.Config{Pool: pool, Table: table, Dimensions: 4, Exact: true})
	require.NoError(t, err)
	require.NoError(t, s.Close())
	require.False(t, hnsw(), "an Exact store's table has no HNSW index")
	s, err = pgvector.Open(ctx, pgvector.Config{Pool: pool, Table: table, Dimensions: 4})
	require.NoError(t, err)
	require.NoError(t, s.Close())
	require.True(t, hnsw(), "opening without Exact creates the HNSW index")
}
