package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/loomwork/loom/checkpoint"
	"github.com/stretchr/testify/require"
)

// prepare creates a database file holding what the statements make.
func prepare(t *testing.T, stmts ...string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "db.sqlite")
	db, err := sql.Open("sqlite", "file:"+path)
	require.NoError(t, err)
	defer db.Close()
	for _, s := range stmts {
		_, err := db.Exec(s)
		require.NoError(t, err, s)
	}
	return path
}

func TestOpenForeignSchema(t *testing.T) {
	cases := []struct {
		name  string
		stmts []string
		want  []string
	}{
		{"a foreign table with loom's name",
			[]string{`CREATE TABLE loom_runs (id INTEGER PRIMARY KEY, name TEXT)`},
			[]string{"table loom_runs", "not loom's", "loom_schema does not", "a database (or PostgreSQL schema) of its own"}},
		{"a schema table without loom's row",
			[]string{`CREATE TABLE loom_schema (name TEXT PRIMARY KEY, version INTEGER NOT NULL)`, `INSERT INTO loom_schema VALUES ('someone.else', 3)`},
			[]string{"table loom_schema", "no loom.checkpoint row"}},
		{"a schema table with other columns",
			[]string{`CREATE TABLE loom_schema (key TEXT, value TEXT)`},
			[]string{"table loom_schema", "no column name, version"}},
		{"a newer loom",
			[]string{`CREATE TABLE loom_schema (name TEXT PRIMARY KEY, version INTEGER NOT NULL)`, `INSERT INTO loom_schema VALUES ('loom.checkpoint', 7)`},
			[]string{"schema version 7", "newer loom", "upgrade loom"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path := prepare(t, c.stmts...)
			_, err := Open(context.Background(), Config{Path: path})
			require.ErrorIs(t, err, checkpoint.ErrCorrupt)
			var ce *checkpoint.CorruptError
			require.ErrorAs(t, err, &ce)
			require.ErrorContains(t, err, "checkpoint/sqlite")
			require.ErrorContains(t, err, path)
			for _, w := range c.want {
				require.ErrorContains(t, err, w)
			}
			_, err = OpenSessions(context.Background(), Config{Path: path})
			require.ErrorIs(t, err, checkpoint.ErrCorrupt)
		})
	}
}

func TestOpenForeignColumns(t *testing.T) {
	path := filepath.Join(t.TempDir(), "db.sqlite")
	s, err := Open(context.Background(), Config{Path: path})
	require.NoError(t, err)
	require.NoError(t, s.Close())
	db, err := sql.Open("sqlite", "file:"+path)
	require.NoError(t, err)
	_, err = db.Exec(`DROP TABLE loom_session_turns; CREATE TABLE loom_session_turns (session_id TEXT, n INTEGER, body BLOB)`)
	require.NoError(t, err)
	require.NoError(t, db.Close())

	_, err = Open(context.Background(), Config{Path: path})
	require.ErrorIs(t, err, checkpoint.ErrCorrupt)
	require.ErrorContains(t, err, "table loom_session_turns")
	require.ErrorContains(t, err, "no column turn, format")
}

// A file shared with an application's own tables works, and reopening an
// existing store keeps its data.
func TestOpenSharedAndReopen(t *testing.T) {
	ctx := context.Background()
	path := prepare(t, `CREATE TABLE spans (trace_id TEXT, span_id TEXT)`, `PRAGMA user_version = 5`)
	s, err := Open(ctx, Config{Path: path})
	require.NoError(t, err)
	require.NoError(t, s.Put(ctx, checkpoint.Checkpoint{RunID: "r", Seq: 1, Time: time.Unix(1, 2)}))
	require.NoError(t, s.Close())

	s, err = Open(ctx, Config{Path: path})
	require.NoError(t, err)
	defer s.Close()
	head, err := s.Head(ctx, "r")
	require.NoError(t, err)
	require.Equal(t, time.Unix(1, 2).UTC(), head.Time)
}

func TestOpenEmptyPathIsDefault(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "sub", "dir", "cp.db")
	t.Setenv(PathEnv, path)
	got, err := DefaultPath()
	require.NoError(t, err)
	require.Equal(t, path, got)

	s, err := Open(ctx, Config{})
	require.NoError(t, err)
	require.Equal(t, path, s.Path())
	require.NoError(t, s.Close())
	sess, err := OpenSessions(ctx, Config{})
	require.NoError(t, err)
	require.Equal(t, path, sess.Path())
	require.NoError(t, sess.Close())

	t.Setenv(PathEnv, "")
	cache := filepath.Join(t.TempDir(), "cache")
	t.Setenv("XDG_CACHE_HOME", cache) // os.UserCacheDir on Linux
	t.Setenv("HOME", t.TempDir())
	got, err = DefaultPath()
	require.NoError(t, err)
	if runtime.GOOS == "linux" {
		require.Equal(t, filepath.Join(cache, "loom", "checkpoints.db"), got)
	}
	require.Equal(t, filepath.Join("loom", "checkpoints.db"), filepath.Join(filepath.Base(filepath.Dir(got)), filepath.Base(got)))
}

func TestConfig(t *testing.T) {
	ctx := context.Background()
	_, err := Open(ctx, Config{Path: filepath.Join(t.TempDir(), "x.db"), BusyTimeout: -time.Second})
	require.ErrorIs(t, err, checkpoint.ErrInvalid)
	require.ErrorContains(t, err, "sqlite.Config.BusyTimeout is -1s")

	clock := time.Date(2030, 1, 1, 0, 0, 0, 5, time.UTC)
	s, err := OpenSessions(ctx, Config{Path: filepath.Join(t.TempDir(), "x.db"), Clock: func() time.Time { return clock }, BusyTimeout: 0})
	require.NoError(t, err)
	defer s.Close()
	require.NoError(t, s.Append(ctx, "s", 0, []byte(`1`)))
	clock = clock.Add(time.Hour)
	require.NoError(t, s.Append(ctx, "s", 1, []byte(`2`)))
	list, err := s.Sessions(ctx, 0)
	require.NoError(t, err)
	require.Equal(t, []checkpoint.SessionInfo{{ID: "s", Turns: 2, Created: clock.Add(-time.Hour), Updated: clock}}, list)
}

// A write that waits longer than the busy timeout for another process's
// lock fails and says what to do.
func TestBusy(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "busy.db")
	s, err := Open(ctx, Config{Path: path, BusyTimeout: time.Millisecond})
	require.NoError(t, err)
	defer s.Close()

	other, err := sql.Open("sqlite", "file:"+path)
	require.NoError(t, err)
	defer other.Close()
	conn, err := other.Conn(ctx)
	require.NoError(t, err)
	defer conn.Close()
	_, err = conn.ExecContext(ctx, "BEGIN IMMEDIATE")
	require.NoError(t, err)

	err = s.Put(ctx, checkpoint.Checkpoint{RunID: "r", Seq: 1, Time: time.Unix(1, 0)})
	require.Error(t, err)
	require.ErrorContains(t, err, `checkpoint/sqlite: Put run "r"`)
	require.ErrorContains(t, err, path)
	require.ErrorContains(t, err, "sqlite.Config.BusyTimeout")

	_, err = conn.ExecContext(ctx, "ROLLBACK")
	require.NoError(t, err)
	require.NoError(t, s.Put(ctx, checkpoint.Checkpoint{RunID: "r", Seq: 1, Time: time.Unix(1, 0)}))
}

// A file written by schema version 1 (testdata/v1.sql) still opens and
// reads, and its runs continue.
func TestGoldenV1(t *testing.T) {
	ctx := context.Background()
	dump, err := os.ReadFile(filepath.Join("testdata", "v1.sql"))
	require.NoError(t, err)
	path := prepare(t, string(dump))

	s, err := Open(ctx, Config{Path: path})
	require.NoError(t, err)
	defer s.Close()
	all, err := s.List(ctx, "run-1")
	require.NoError(t, err)
	require.Equal(t, []checkpoint.Checkpoint{
		{RunID: "run-1", Seq: 1, Kind: "start", Time: time.Unix(0, 1767323045000000001).UTC(),
			Events: json.RawMessage(`[{"kind":"run_start"}]`), Meta: map[string]string{"agent": "coder"}},
		{RunID: "run-1", Seq: 2, Kind: "interrupt", Time: time.Unix(0, 1767323046000000002).UTC(),
			State: json.RawMessage(`{"pending":["approve"]}`), Meta: map[string]string{"agent": "coder"}},
	}, all)
	runs, err := s.Runs(ctx, checkpoint.RunFilter{Meta: map[string]string{"agent": "coder"}})
	require.NoError(t, err)
	require.Len(t, runs, 1)
	require.Equal(t, int64(2), runs[0].Head)
	require.NoError(t, s.Put(ctx, checkpoint.Checkpoint{RunID: "run-1", Seq: 3, Kind: "end", Time: time.Unix(1767323047, 0)}))

	sess, err := OpenSessions(ctx, Config{Path: path})
	require.NoError(t, err)
	defer sess.Close()
	turns, err := sess.Load(ctx, "chat-1")
	require.NoError(t, err)
	require.Equal(t, []json.RawMessage{json.RawMessage(`{"role":"user","text":"hi"}`), json.RawMessage(`{"role":"assistant","text":"hello"}`)}, turns)
	require.NoError(t, sess.Append(ctx, "chat-1", 2, json.RawMessage(`{"role":"user","text":"again"}`)))
}
