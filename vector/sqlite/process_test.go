package sqlite_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/loomwork/loom/vector"
	"github.com/loomwork/loom/vector/sqlite"
	"github.com/loomwork/loom/vector/vectortest"
)

const childDBEnv = "LOOM_VECTOR_TEST_CHILD_DB"

// TestSQLiteChildWriter runs only in the child process of
// TestSQLiteSurvivesProcessExit: it writes and exits without closing, as a
// crashed process would.
func TestSQLiteChildWriter(t *testing.T) {
	path := os.Getenv(childDBEnv)
	if path == "" {
		t.Skip("runs as the child of TestSQLiteSurvivesProcessExit")
	}
	ctx := context.Background()
	s, err := sqlite.Open(ctx, sqlite.Config{Path: path, MemoryConfig: vector.MemoryConfig{Embedder: vectortest.Embedder(64)}})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(3)
	}
	for i := range 50 {
		d := vector.Document{ID: fmt.Sprint("doc-", i), Text: fmt.Sprintf("note %d about topic %d", i, i%5),
			Metadata: map[string]any{"i": i}}
		if err := s.Upsert(ctx, d); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(4)
		}
	}
	if err := s.Delete(ctx, "doc-7"); err != nil {
		os.Exit(5)
	}
	os.Exit(0) // no Close: what returned must already be on disk
}

func TestSQLiteSurvivesProcessExit(t *testing.T) {
	if os.Getenv(childDBEnv) != "" {
		t.Skip("this is the child")
	}
	path := filepath.Join(t.TempDir(), "v.db")
	cmd := exec.Command(os.Args[0], "-test.run=^TestSQLiteChildWriter$", "-test.count=1")
	cmd.Env = append(os.Environ(), childDBEnv+"="+path)
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "child: %s", out)

	s := openStore(t, sqlite.Config{Path: path, MemoryConfig: vector.MemoryConfig{Embedder: vectortest.Embedder(64)}})
	defer s.Close()
	require.Equal(t, 49, s.Len())
	ms, err := s.Search(context.Background(), vector.Query{Text: "note 12 about topic 2", K: 3, Filter: vector.Gte("i", 10)})
	require.NoError(t, err)
	require.Equal(t, "doc-12", ms[0].ID)
	require.Equal(t, map[string]any{"i": 12.0}, ms[0].Metadata)
	for _, m := range ms {
		require.NotEqual(t, "doc-7", m.ID)
	}
}
