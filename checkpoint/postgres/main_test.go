package postgres

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"os"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/loomwork/loom/checkpoint"
	"github.com/loomwork/loom/checkpoint/checkpointtest"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"
)

// DSNEnv names the test server: a PostgreSQL connection string. Without it
// the tests skip, except under CI (CI=true), where they fail; .ci/postgres.sh
// starts a server and sets it.
const DSNEnv = "LOOM_TEST_POSTGRES_DSN"

func TestMain(m *testing.M) {
	checkpointtest.ChildMain(openBoth)
	goleak.VerifyTestMain(m)
}

// openBoth opens the checkpoint and session stores in one schema of the
// test server.
func openBoth(ctx context.Context, schema string) (checkpoint.Store, checkpoint.SessionStore, error) {
	s, err := Open(ctx, Config{DSN: os.Getenv(DSNEnv), Schema: schema})
	if err != nil {
		return nil, nil, err
	}
	sess, err := OpenSessions(ctx, Config{DSN: os.Getenv(DSNEnv), Schema: schema})
	if err != nil {
		s.Close()
		return nil, nil, err
	}
	return s, sess, nil
}

// testDSN returns the test server's connection string.
func testDSN(t testing.TB) string {
	t.Helper()
	dsn := os.Getenv(DSNEnv)
	if dsn == "" {
		if os.Getenv("CI") == "true" {
			t.Fatalf("%s is not set under CI: .ci/run must source .ci/postgres.sh before the tests", DSNEnv)
		}
		t.Skipf("%s is not set: run `LOOM_START_POSTGRES=1 source .ci/postgres.sh` to start a server", DSNEnv)
	}
	return dsn
}

// testSchema returns a new schema name and drops that schema at the end of
// the test, so every test works on empty tables of its own.
func testSchema(t testing.TB) string {
	t.Helper()
	dsn := testDSN(t)
	b := make([]byte, 6)
	_, _ = rand.Read(b)
	name := "loomtest_" + hex.EncodeToString(b)
	t.Cleanup(func() {
		ctx := context.Background()
		conn, err := pgx.Connect(ctx, dsn)
		require.NoError(t, err)
		defer conn.Close(ctx)
		_, err = conn.Exec(ctx, `DROP SCHEMA IF EXISTS `+pgx.Identifier{name}.Sanitize()+` CASCADE`)
		require.NoError(t, err)
	})
	return name
}

// testPool returns a pool on the test server, closed at the end of the test.
func testPool(t testing.TB) *pgxpool.Pool {
	t.Helper()
	pool, err := pgxpool.New(context.Background(), testDSN(t))
	require.NoError(t, err)
	t.Cleanup(pool.Close)
	return pool
}

// exec runs statements on the test server.
func exec(t testing.TB, stmts ...string) {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, testDSN(t))
	require.NoError(t, err)
	defer conn.Close(ctx)
	for _, s := range stmts {
		_, err := conn.Exec(ctx, s)
		require.NoError(t, err, s)
	}
}
