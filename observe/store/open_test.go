package store_test

import (
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/loomwork/loom/observe/internal/fixture"
	"github.com/loomwork/loom/observe/store"
	"github.com/stretchr/testify/require"
)

func pragma(t *testing.T, path, name string) string {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+path)
	require.NoError(t, err)
	defer db.Close()
	var v string
	require.NoError(t, db.QueryRow("PRAGMA "+name).Scan(&v))
	return v
}

func TestReopenExistingDatabase(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "nested", "dir", "traces.db")
	s, err := store.Open(ctx, store.Config{Path: path})
	require.NoError(t, err, "missing folders are created")
	require.Equal(t, path, s.Path())
	export(t, s, fixture.Run{Seed: 1}, fixture.Run{Seed: 2})
	require.NoError(t, s.Close())
	require.NoError(t, s.Close(), "closing twice is fine")
	_, err = s.Traces(ctx, store.Query{})
	require.ErrorIs(t, err, store.ErrClosed)

	require.Equal(t, strconv.Itoa(store.SchemaVersion), pragma(t, path, "user_version"))
	require.Equal(t, "wal", pragma(t, path, "journal_mode"))
	require.Equal(t, "16384", pragma(t, path, "page_size"), "a new file gets 16 KiB pages")

	s, err = store.Open(ctx, store.Config{Path: path})
	require.NoError(t, err)
	defer s.Close()
	p, err := s.Traces(ctx, store.Query{})
	require.NoError(t, err)
	require.ElementsMatch(t, seedIDs(1, 2), ids(p))
	require.Equal(t, int64(2), p.Seq)

	// Writing after reopening continues the sequence and the summaries.
	export(t, s, fixture.Run{Seed: 3})
	p, err = s.Traces(ctx, store.Query{Since: 2})
	require.NoError(t, err)
	require.Equal(t, seedIDs(3), ids(p))
	require.Equal(t, int64(3), p.Seq)
}

func TestOpenRefusesNewerSchema(t *testing.T) {
	path := filepath.Join(t.TempDir(), "traces.db")
	db, err := sql.Open("sqlite", "file:"+path)
	require.NoError(t, err)
	_, err = db.Exec("PRAGMA user_version = 99")
	require.NoError(t, err)
	require.NoError(t, db.Close())

	_, err = store.Open(context.Background(), store.Config{Path: path})
	require.ErrorIs(t, err, store.ErrSchemaTooNew)
	require.ErrorContains(t, err, "upgrade loom")
}

func TestOpenFailsClearlyOnUnusablePath(t *testing.T) {
	dir := t.TempDir()
	blocker := filepath.Join(dir, "file")
	require.NoError(t, os.WriteFile(blocker, []byte("x"), 0o600))
	_, err := store.Open(context.Background(), store.Config{Path: filepath.Join(blocker, "traces.db")})
	require.Error(t, err)
	require.ErrorContains(t, err, store.PathEnv)
}

func TestDefaultPath(t *testing.T) {
	t.Setenv(store.PathEnv, "/somewhere/else.db")
	p, err := store.DefaultPath()
	require.NoError(t, err)
	require.Equal(t, "/somewhere/else.db", p)

	t.Setenv(store.PathEnv, "")
	t.Setenv("XDG_CACHE_HOME", "/cache-home")
	p, err = store.DefaultPath()
	require.NoError(t, err)
	require.Equal(t, "/cache-home/loom/traces.db", p)
}

func TestOpenDefaultPathFromEnv(t *testing.T) {
	path := filepath.Join(t.TempDir(), "env.db")
	t.Setenv(store.PathEnv, path)
	s, err := store.Open(context.Background(), store.Config{Path: ""})
	require.NoError(t, err)
	require.Equal(t, path, s.Path())
	require.NoError(t, s.Close())
	_, err = os.Stat(path)
	require.NoError(t, err)
}

func TestPathWithSpecialCharacters(t *testing.T) {
	path := filepath.Join(t.TempDir(), "a dir #1 ?x", "traces%20.db")
	s, err := store.Open(context.Background(), store.Config{Path: path})
	require.NoError(t, err)
	export(t, s, fixture.Run{Seed: 1})
	require.NoError(t, s.Close())
	_, err = os.Stat(path)
	require.NoError(t, err, "the file is where it was asked for")
}

// TestOpenKeepsAnExistingFilesPageSize opens a file made with SQLite's
// default 4 KiB pages: it keeps them, and the store works on it.
func TestOpenKeepsAnExistingFilesPageSize(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "traces.db")
	db, err := sql.Open("sqlite", "file:"+path)
	require.NoError(t, err)
	_, err = db.Exec("PRAGMA page_size = 4096; CREATE TABLE other (x INTEGER)")
	require.NoError(t, err)
	require.NoError(t, db.Close())

	s, err := store.Open(ctx, store.Config{Path: path})
	require.NoError(t, err)
	export(t, s, fixture.Run{Seed: 1})
	p, err := s.Traces(ctx, store.Query{})
	require.NoError(t, err)
	require.Len(t, p.Traces, 1)
	require.NoError(t, s.Close())
	require.Equal(t, "4096", pragma(t, path, "page_size"))
}
