package postgres

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/loomwork/loom/checkpoint"
	"github.com/stretchr/testify/require"
)

func TestOpenForeignSchema(t *testing.T) {
	testDSN(t)
	cases := []struct {
		name  string
		stmts []string // {s} is the schema
		want  []string
	}{
		{"a foreign table with loom's name",
			[]string{`CREATE TABLE {s}.loom_runs (id serial PRIMARY KEY, name text)`},
			[]string{"table loom_runs", "not loom's", "loom_schema does not", "a database (or PostgreSQL schema) of its own"}},
		{"a schema table without loom's row",
			[]string{`CREATE TABLE {s}.loom_schema (name text PRIMARY KEY, version bigint NOT NULL)`, `INSERT INTO {s}.loom_schema VALUES ('someone.else', 3)`},
			[]string{"table loom_schema", "no loom.checkpoint row"}},
		{"a schema table with other columns",
			[]string{`CREATE TABLE {s}.loom_schema (key text, value text)`},
			[]string{"table loom_schema", "no column name, version"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			schema := testSchema(t)
			stmts := []string{`CREATE SCHEMA ` + schema}
			for _, s := range c.stmts {
				stmts = append(stmts, replaceSchema(s, schema))
			}
			exec(t, stmts...)
			_, err := Open(context.Background(), Config{DSN: testDSN(t), Schema: schema})
			require.ErrorIs(t, err, checkpoint.ErrCorrupt)
			var ce *checkpoint.CorruptError
			require.ErrorAs(t, err, &ce)
			require.ErrorContains(t, err, "checkpoint/postgres")
			for _, w := range c.want {
				require.ErrorContains(t, err, w)
			}
			_, err = OpenSessions(context.Background(), Config{Pool: testPool(t), Schema: schema})
			require.ErrorIs(t, err, checkpoint.ErrCorrupt)
		})
	}
}

func replaceSchema(stmt, schema string) string { return strings.ReplaceAll(stmt, "{s}", schema) }

// A schema written by a newer loom, and one whose table lost a column,
// are refused.
func TestOpenNewerAndAltered(t *testing.T) {
	ctx := context.Background()
	schema := testSchema(t)
	s, err := Open(ctx, Config{DSN: testDSN(t), Schema: schema})
	require.NoError(t, err)
	require.NoError(t, s.Close())

	exec(t, `UPDATE `+schema+`.loom_schema SET version = 9`)
	_, err = Open(ctx, Config{DSN: testDSN(t), Schema: schema})
	require.ErrorIs(t, err, checkpoint.ErrCorrupt)
	require.ErrorContains(t, err, "schema version 9 was written by a newer loom")
	require.ErrorContains(t, err, "upgrade loom")

	exec(t, `UPDATE `+schema+`.loom_schema SET version = 1`, `ALTER TABLE `+schema+`.loom_checkpoints DROP COLUMN events`)
	_, err = Open(ctx, Config{DSN: testDSN(t), Schema: schema})
	require.ErrorIs(t, err, checkpoint.ErrCorrupt)
	require.ErrorContains(t, err, "table loom_checkpoints")
	require.ErrorContains(t, err, "no column events")
}

// Many processes (here: pools, each its own server connections) opening a
// new schema at once create it once, and all can use it.
func TestOpenConcurrently(t *testing.T) {
	ctx := context.Background()
	schema := testSchema(t)
	const n = 6
	stores := make([]*Store, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			stores[i], errs[i] = Open(ctx, Config{DSN: testDSN(t), Schema: schema})
		}()
	}
	close(start)
	wg.Wait()
	for i, err := range errs {
		require.NoError(t, err, "opener %d", i)
		t.Cleanup(func() { require.NoError(t, stores[i].Close()) })
	}
	for i, s := range stores {
		require.NoError(t, s.Put(ctx, checkpoint.Checkpoint{RunID: "r", Seq: int64(i + 1), Time: time.Unix(int64(i), 0)}))
	}
	all, err := stores[0].List(ctx, "r")
	require.NoError(t, err)
	require.Len(t, all, n)
}

// The default schema is the connection's current one; New leaves the
// caller's pool open.
func TestDefaultSchemaAndPool(t *testing.T) {
	ctx := context.Background()
	schema := testSchema(t)
	exec(t, `CREATE SCHEMA `+schema)
	cfgPool := testPool(t).Config()
	cfgPool.ConnConfig.RuntimeParams["search_path"] = schema
	pool, err := pgxpool.NewWithConfig(ctx, cfgPool)
	require.NoError(t, err)
	defer pool.Close()

	s, err := Open(ctx, Config{Pool: pool})
	require.NoError(t, err)
	require.NoError(t, s.Put(ctx, checkpoint.Checkpoint{RunID: "r", Seq: 1, Time: time.Unix(1, 0)}))
	require.NoError(t, s.Close())
	require.NoError(t, pool.Ping(ctx), "New's Close leaves the pool open")

	var n int
	require.NoError(t, pool.QueryRow(ctx, `SELECT count(*) FROM `+pgx.Identifier{schema, "loom_checkpoints"}.Sanitize()).Scan(&n))
	require.Equal(t, 1, n, "the tables are in the search_path's first schema")

	_, err = Open(ctx, Config{})
	require.ErrorIs(t, err, checkpoint.ErrInvalid)
	require.ErrorContains(t, err, "neither DSN nor Pool")
	_, err = Open(ctx, Config{DSN: "postgres://x", Pool: pool})
	require.ErrorIs(t, err, checkpoint.ErrInvalid)
	require.ErrorContains(t, err, "both DSN and Pool")
	_, err = Open(ctx, Config{DSN: "postgres://nobody:secret@127.0.0.1:1/x?connect_timeout=1"})
	require.Error(t, err)
	require.NotContains(t, err.Error(), "secret", "the password is not in the error")
}
