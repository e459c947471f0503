package pgvector_test

import (
	"context"
	"fmt"
	"log"

	"github.com/loomwork/loom/vector"
	"github.com/loomwork/loom/vector/pgvector"
)

// Open a store on a PostgreSQL server with pgvector, add documents and
// search them with a metadata filter. (Not run: it needs a server.)
func ExampleOpen() {
	ctx := context.Background()
	emb, err := vector.NewHashEmbedder(256) // use a provider's embedder for semantic search
	if err != nil {
		log.Fatal(err)
	}
	store, err := pgvector.Open(ctx, pgvector.Config{
		DSN:      "postgres://postgres:postgres@127.0.0.1:5432/postgres?sslmode=disable",
		Table:    "docs",
		Embedder: emb,
	})
	if err != nil {
		log.Fatal(err)
	}
	defer store.Close()

	err = store.Upsert(ctx,
		vector.Document{ID: "1", Text: "goroutines and channels", Metadata: map[string]any{"lang": "go"}},
		vector.Document{ID: "2", Text: "promises and async functions", Metadata: map[string]any{"lang": "js"}},
	)
	if err != nil {
		log.Fatal(err)
	}
	matches, err := store.Search(ctx, vector.Query{Text: "channels", K: 3, Filter: vector.Eq("lang", "go")})
	if err != nil {
		log.Fatal(err)
	}
	for _, m := range matches {
		fmt.Printf("%s %.2f\n", m.ID, m.Score)
	}
}
