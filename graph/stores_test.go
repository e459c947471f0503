package graph_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"os"
	"path/filepath"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/loomwork/loom/checkpoint"
	"github.com/loomwork/loom/checkpoint/postgres"
	"github.com/loomwork/loom/checkpoint/sqlite"
	"github.com/stretchr/testify/require"
)

// postgresDSN returns the PostgreSQL test server (postgres.DSNEnv is
// LOOM_TEST_POSTGRES_DSN, which .ci/postgres.sh sets), or "" when there is
// none outside CI. Under CI (CI=true) a missing server fails the test.
func postgresDSN(t testing.TB) string {
	t.Helper()
	dsn := os.Getenv("LOOM_TEST_POSTGRES_DSN")
	if dsn == "" && os.Getenv("CI") == "true" {
		t.Fatalf("LOOM_TEST_POSTGRES_DSN is not set under CI: .ci/run must source .ci/postgres.sh before the tests")
	}
	return dsn
}

// openPostgres opens a store in a new schema of the test server, dropped
// when the test ends.
func openPostgres(t testing.TB, dsn string) checkpoint.Store {
	t.Helper()
	ctx := context.Background()
	b := make([]byte, 6)
	_, _ = rand.Read(b)
	schema := "loomgraph_" + hex.EncodeToString(b)
	s, err := postgres.Open(ctx, postgres.Config{DSN: dsn, Schema: schema})
	require.NoError(t, err)
	t.Cleanup(func() {
		_ = s.Close()
		conn, err := pgx.Connect(ctx, dsn)
		require.NoError(t, err)
		defer conn.Close(ctx)
		_, err = conn.Exec(ctx, `DROP SCHEMA IF EXISTS `+pgx.Identifier{schema}.Sanitize()+` CASCADE`)
		require.NoError(t, err)
	})
	return s
}

func openSQLite(t testing.TB) checkpoint.Store {
	t.Helper()
	s, err := sqlite.Open(context.Background(), sqlite.Config{Path: filepath.Join(t.TempDir(), "graph.db")})
	require.NoError(t, err)
	t.Cleanup(func() { _ = s.Close() })
	return s
}

// stores returns a fresh store of each kind: memory, SQLite, and
// PostgreSQL when a test server is set.
func stores(t *testing.T) map[string]checkpoint.Store {
	t.Helper()
	out := map[string]checkpoint.Store{"memory": checkpoint.NewMemory(), "sqlite": openSQLite(t)}
	if dsn := postgresDSN(t); dsn != "" {
		out["postgres"] = openPostgres(t, dsn)
	} else {
		t.Log("PostgreSQL not tested: LOOM_TEST_POSTGRES_DSN is not set")
	}
	return out
}
