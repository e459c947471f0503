package bench

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"runtime"
	"testing"

	chromem "github.com/philippgille/chromem-go"

	"github.com/loomwork/loom/vector"
	"github.com/loomwork/loom/vector/sqlite"
)

// store is what the benchmarks need of each contender.
type store interface {
	ingest(ctx context.Context, vs [][]float32) error
	query(ctx context.Context, q []float32) (int, error)
	close()
}

type contender struct {
	name string
	open func(tb testing.TB) store
}

func contenders() []contender {
	return []contender{
		{"loom-memory", func(tb testing.TB) store { return openLoom(tb, false) }},
		{"loom-memory-int8", func(tb testing.TB) store { return openLoom(tb, true) }},
		{"loom-sqlite", openLoomSQLite},
		{"chromem-go", openChromem},
	}
}

// loomStore is a vector.Store under test.
type loomStore struct{ s vector.Store }

func openLoom(tb testing.TB, int8 bool) store {
	s, err := vector.NewMemory(vector.MemoryConfig{Dimensions: dims, Int8: int8})
	if err != nil {
		tb.Fatal(err)
	}
	return loomStore{s}
}

func openLoomSQLite(tb testing.TB) store {
	s, err := sqlite.Open(context.Background(), sqlite.Config{
		Path: filepath.Join(tb.TempDir(), "v.db"), MemoryConfig: vector.MemoryConfig{Dimensions: dims},
	})
	if err != nil {
		tb.Fatal(err)
	}
	return loomStore{s}
}

func (l loomStore) ingest(ctx context.Context, vs [][]float32) error {
	const batch = 1000
	for lo := 0; lo < len(vs); lo += batch {
		docs := make([]vector.Document, 0, batch)
		for i := lo; i < min(lo+batch, len(vs)); i++ {
			docs = append(docs, vector.Document{ID: fmt.Sprint("doc-", i), Text: "text", Vector: vs[i]})
		}
		if err := l.s.Upsert(ctx, docs...); err != nil {
			return err
		}
	}
	return nil
}

func (l loomStore) query(ctx context.Context, q []float32) (int, error) {
	ms, err := l.s.Search(ctx, vector.Query{Vector: q, K: k})
	return len(ms), err
}

func (l loomStore) close() { _ = l.s.Close() }

// chromemStore is a chromem-go in-memory collection.
type chromemStore struct{ c *chromem.Collection }

func openChromem(tb testing.TB) store {
	db := chromem.NewDB()
	c, err := db.CreateCollection("bench", nil, func(context.Context, string) ([]float32, error) {
		return nil, errors.New("the benchmark gives vectors")
	})
	if err != nil {
		tb.Fatal(err)
	}
	return chromemStore{c}
}

func (c chromemStore) ingest(ctx context.Context, vs [][]float32) error {
	docs := make([]chromem.Document, len(vs))
	for i, v := range vs {
		docs[i] = chromem.Document{ID: fmt.Sprint("doc-", i), Content: "text", Embedding: v}
	}
	return c.c.AddDocuments(ctx, docs, runtime.GOMAXPROCS(0))
}

func (c chromemStore) query(ctx context.Context, q []float32) (int, error) {
	rs, err := c.c.QueryEmbedding(ctx, q, k, nil, nil)
	return len(rs), err
}

func (chromemStore) close() {}

// topID returns the id of the best match.
func (l loomStore) topID(ctx context.Context, q []float32) (string, error) {
	ms, err := l.s.Search(ctx, vector.Query{Vector: q, K: 1})
	if err != nil || len(ms) == 0 {
		return "", err
	}
	return ms[0].ID, nil
}
