package vector_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/loomwork/loom/agent"
	"github.com/loomwork/loom/engine"
	"github.com/loomwork/loom/model"
	"github.com/loomwork/loom/vector"
)

func ExampleNewMemory() {
	ctx := context.Background()
	emb, _ := vector.NewHashEmbedder(256) // lexical and offline; use a provider's embedder for meaning
	store, err := vector.NewMemory(vector.Options{Embedder: emb})
	if err != nil {
		panic(err)
	}
	defer store.Close()

	_ = store.Upsert(ctx,
		vector.Document{ID: "go", Text: "goroutines and channels", Metadata: map[string]any{"lang": "go", "year": 2009}},
		vector.Document{ID: "js", Text: "promises and async functions", Metadata: map[string]any{"lang": "js", "year": 1995}},
		vector.Document{ID: "rs", Text: "ownership, borrowing and async", Metadata: map[string]any{"lang": "rust", "year": 2015}},
	)
	ms, _ := store.Search(ctx, vector.Query{Text: "async", K: 2, Filter: vector.Gte("year", 2000)})
	for _, m := range ms {
		fmt.Println(m.ID, m.Metadata["lang"])
	}
	// Output:
	// rs rust
	// go go
}

func ExampleOpenSQLite() {
	ctx := context.Background()
	dir, _ := os.MkdirTemp("", "vectors")
	defer os.RemoveAll(dir)
	emb, _ := vector.NewHashEmbedder(64)
	opts := vector.SQLiteOptions{Path: filepath.Join(dir, "v.db"), Options: vector.Options{Embedder: emb}}

	s, _ := vector.OpenSQLite(ctx, opts)
	_ = s.Upsert(ctx, vector.Document{ID: "a", Text: "kept across restarts"})
	_ = s.Close()

	s, _ = vector.OpenSQLite(ctx, opts) // a later process opens the same file
	defer s.Close()
	ms, _ := s.Search(ctx, vector.Query{Text: "restarts"})
	fmt.Println(s.Len(), ms[0].ID, ms[0].Text)
	// Output: 1 a kept across restarts
}

func ExampleNewSearchTool() {
	ctx := context.Background()
	emb, _ := vector.NewHashEmbedder(256)
	store, _ := vector.NewMemory(vector.Options{Embedder: emb})
	defer store.Close()
	ing, _ := vector.NewIngester(store, vector.IngestOptions{ChunkSize: 200})
	_, _ = ing.Ingest(ctx, "handbook.md", "Deploys happen on Tuesdays.\n\nThe on-call engineer approves every deploy.", nil)

	// The tool is an agent: give it to an agent.AI as one of its tools.
	tool, _ := vector.NewSearchTool(store, vector.SearchToolOptions{Description: "Searches the team handbook."})
	out, _ := agent.InvokeAs[vector.SearchOutput](ctx, tool, map[string]any{"query": "who approves a deploy", "k": 1})
	fmt.Println(out.Matches[0].ID, out.Matches[0].Metadata["source"])
	// Output: handbook.md#0 handbook.md
}

func ExampleNewRecallMemory() {
	ctx := context.Background()
	emb, _ := vector.NewHashEmbedder(256)
	index, _ := vector.NewMemory(vector.Options{Embedder: emb})
	defer index.Close()
	// Add Sessions (checkpoint/sqlite.OpenSessions) to keep the turns
	// across processes.
	mem, _ := vector.NewRecallMemory(vector.RecallConfig{Store: index, SessionID: "user-1", Recent: 1, Recall: 1})

	turn := func(q, a string) engine.Turn {
		return engine.Turn{Messages: []model.Message{model.UserMessage(q), model.AssistantMessage(a)}}
	}
	_ = mem.Add(ctx, turn("My dog is called Biscuit.", "A fine name."))
	_ = mem.Add(ctx, turn("What is 2+2?", "4."))
	_ = mem.Add(ctx, turn("Recommend a book.", "Dune."))

	// Before the next turn: the last turn, and the earlier one that matches.
	msgs, _ := mem.Messages(ctx, json.RawMessage(`{"message":"What is my dog called?"}`))
	for _, m := range msgs {
		fmt.Printf("%s: %s\n", m.Role, m.Text())
	}
	// Output:
	// user: My dog is called Biscuit.
	// assistant: A fine name.
	// user: Recommend a book.
	// assistant: Dune.
}
