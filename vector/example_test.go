package vector_test

import (
	"context"
	"fmt"

	"github.com/loomwork/loom/agent"
	"github.com/loomwork/loom/vector"
)

func ExampleNewMemory() {
	ctx := context.Background()
	emb, _ := vector.NewHashEmbedder(256) // lexical and offline; use a provider's embedder for meaning
	store, err := vector.NewMemory(vector.MemoryConfig{Embedder: emb})
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

func ExampleNewSearchTool() {
	ctx := context.Background()
	emb, _ := vector.NewHashEmbedder(256)
	store, _ := vector.NewMemory(vector.MemoryConfig{Embedder: emb})
	defer store.Close()
	ing, _ := vector.NewIngester(store, vector.IngestConfig{ChunkSize: 200})
	_, _ = ing.Ingest(ctx, "handbook.md", "Deploys happen on Tuesdays.\n\nThe on-call engineer approves every deploy.", nil)

	// The tool is an agent: give it to an agent.AI as one of its tools.
	tool, _ := vector.NewSearchTool(store, vector.SearchToolConfig{Description: "Searches the team handbook."})
	out, _ := agent.InvokeAs[vector.SearchOutput](ctx, tool, map[string]any{"query": "who approves a deploy", "k": 1})
	fmt.Println(out.Matches[0].ID, out.Matches[0].Metadata["source"])
	// Output: handbook.md#0 handbook.md
}
