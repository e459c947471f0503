package sqlite_test

import (
	"context"
	"database/sql"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/loomwork/loom/vector"
	"github.com/loomwork/loom/vector/sqlite"
	"github.com/loomwork/loom/vector/vectortest"
)

func openStore(t *testing.T, o sqlite.Config) *sqlite.Store {
	t.Helper()
	s, err := sqlite.Open(context.Background(), o)
	require.NoError(t, err)
	return s
}

func TestSQLiteConformance(t *testing.T) {
	for _, int8 := range []bool{false, true} {
		name, tol := "float32", float32(0)
		if int8 {
			name, tol = "int8", 0.02
		}
		t.Run(name, func(t *testing.T) {
			vectortest.Run(t, func(t *testing.T, dims int) vector.Store {
				return openStore(t, sqlite.Config{
					Path:         filepath.Join(t.TempDir(), "v.db"),
					MemoryConfig: vector.MemoryConfig{Embedder: vectortest.Embedder(dims), Int8: int8},
				})
			}, vectortest.Options{
				ScoreTolerance: tol,
				Reopen: func(t *testing.T, s vector.Store) vector.Store {
					old := s.(*sqlite.Store)
					require.NoError(t, old.Close())
					return openStore(t, sqlite.Config{
						Path:         old.Path(),
						MemoryConfig: vector.MemoryConfig{Embedder: vectortest.Embedder(old.Dimensions()), Int8: int8},
					})
				},
			})
		})
	}
}

func TestSQLiteCollections(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "sub", "dir", "v.db")
	a := openStore(t, sqlite.Config{Path: path, MemoryConfig: vector.MemoryConfig{Dimensions: 2}})
	require.Equal(t, sqlite.DefaultCollection, a.Collection())
	require.NoError(t, a.Upsert(ctx, vector.Document{ID: "x", Vector: []float32{1, 0}, Text: "in default"}))
	require.NoError(t, a.Close())

	b := openStore(t, sqlite.Config{Path: path, Collection: "other", MemoryConfig: vector.MemoryConfig{Dimensions: 3}})
	require.Zero(t, b.Len(), "collections are separate")
	require.NoError(t, b.Upsert(ctx, vector.Document{ID: "x", Vector: []float32{0, 0, 1}}))
	require.NoError(t, b.Close())

	// Dimensions come from the stored collection when not given.
	a = openStore(t, sqlite.Config{Path: path})
	require.Equal(t, 2, a.Dimensions())
	require.Equal(t, 1, a.Len())
	require.NoError(t, a.Close())

	_, err := sqlite.Open(ctx, sqlite.Config{Path: path, MemoryConfig: vector.MemoryConfig{Dimensions: 5}})
	require.ErrorIs(t, err, vector.ErrDimension)
	require.ErrorContains(t, err, `collection "default"`)
	require.ErrorContains(t, err, "the options has 5 dimensions, the store has 2")

	_, err = sqlite.Open(ctx, sqlite.Config{Path: path, Collection: "new"})
	require.ErrorContains(t, err, "a new collection needs dimensions")
}

func TestSQLiteEmbedderMismatch(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "v.db")
	s := openStore(t, sqlite.Config{Path: path, MemoryConfig: vector.MemoryConfig{Embedder: vectortest.Embedder(8)}})
	require.NoError(t, s.Upsert(ctx, vector.Document{ID: "a", Text: "hello"}))
	require.NoError(t, s.Close())

	_, err := sqlite.Open(ctx, sqlite.Config{Path: path, MemoryConfig: vector.MemoryConfig{Embedder: renamed{Embedder: vectortest.Embedder(8), name: "other:8"}}})
	require.ErrorIs(t, err, vector.ErrEmbedderMismatch)
	require.ErrorContains(t, err, "embedded with hash:8, not other:8")

	// Without an embedder the collection still opens for vector queries.
	s = openStore(t, sqlite.Config{Path: path})
	require.Equal(t, 1, s.Len())
	require.NoError(t, s.Close())
}

func TestSQLiteDamagedVector(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "v.db")
	s := openStore(t, sqlite.Config{Path: path, MemoryConfig: vector.MemoryConfig{Dimensions: 2}})
	require.NoError(t, s.Upsert(ctx, vector.Document{ID: "a", Vector: []float32{1, 1}}))
	require.NoError(t, s.Close())

	db, err := sql.Open("sqlite", "file:"+path)
	require.NoError(t, err)
	_, err = db.Exec(`UPDATE vector_documents SET vector = x'0000'`)
	require.NoError(t, err)
	require.NoError(t, db.Close())

	_, err = sqlite.Open(ctx, sqlite.Config{Path: path})
	require.ErrorContains(t, err, `document "a" has a vector of 2 bytes, want 8: the file is damaged`)
}

func TestDefaultPath(t *testing.T) {
	t.Setenv(sqlite.PathEnv, "/tmp/x/v.db")
	p, err := sqlite.DefaultPath()
	require.NoError(t, err)
	require.Equal(t, "/tmp/x/v.db", p)

	t.Setenv(sqlite.PathEnv, "")
	t.Setenv("XDG_CACHE_HOME", "/tmp/cache")
	p, err = sqlite.DefaultPath()
	require.NoError(t, err)
	require.Equal(t, filepath.Join("/tmp/cache", "loom", "vectors.db"), p)
}

func TestSQLiteFailedWriteKeepsMemory(t *testing.T) {
	ctx := context.Background()
	s := openStore(t, sqlite.Config{Path: filepath.Join(t.TempDir(), "v.db"), MemoryConfig: vector.MemoryConfig{Dimensions: 2}})
	defer s.Close()
	require.NoError(t, s.Upsert(ctx, vector.Document{ID: "a", Vector: []float32{1, 0}}))
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	require.ErrorIs(t, s.Upsert(cancelled, vector.Document{ID: "b", Vector: []float32{0, 1}}), context.Canceled)
	require.ErrorIs(t, s.Delete(cancelled, "a"), context.Canceled)
	require.Equal(t, 1, s.Len(), "a write the database refused does not change memory")
}
