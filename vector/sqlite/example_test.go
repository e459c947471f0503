package sqlite_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/loomwork/loom/vector"
	"github.com/loomwork/loom/vector/sqlite"
)

func ExampleOpen() {
	ctx := context.Background()
	dir, _ := os.MkdirTemp("", "vectors")
	defer os.RemoveAll(dir)
	emb, _ := vector.NewHashEmbedder(64)
	opts := sqlite.Config{Path: filepath.Join(dir, "v.db"), MemoryConfig: vector.MemoryConfig{Embedder: emb}}

	s, _ := sqlite.Open(ctx, opts)
	_ = s.Upsert(ctx, vector.Document{ID: "a", Text: "kept across restarts"})
	_ = s.Close()

	s, _ = sqlite.Open(ctx, opts) // a later process opens the same file
	defer s.Close()
	ms, _ := s.Search(ctx, vector.Query{Text: "restarts"})
	fmt.Println(s.Len(), ms[0].ID, ms[0].Text)
	// Output: 1 a kept across restarts
}
