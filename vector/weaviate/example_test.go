package weaviate_test

import (
	"context"
	"fmt"
	"log"

	wv "github.com/weaviate/weaviate-go-client/v5/weaviate"

	"github.com/loomwork/loom/vector"
	"github.com/loomwork/loom/vector/weaviate"
)

// Open a store on a Weaviate class and search it. (Not run: it needs a
// Weaviate server.)
func ExampleOpen() {
	ctx := context.Background()
	client, err := wv.NewClient(wv.Config{Host: "127.0.0.1:8080", Scheme: "http"})
	if err != nil {
		log.Fatal(err)
	}
	emb, err := vector.NewHashEmbedder(256) // use a provider's embedder for semantic search
	if err != nil {
		log.Fatal(err)
	}
	store, err := weaviate.Open(ctx, weaviate.Config{Client: client, Class: "Docs", Embedder: emb})
	if err != nil {
		log.Fatal(err)
	}
	defer store.Close()
	if err := store.Upsert(ctx, vector.Document{ID: "1", Text: "goroutines and channels", Metadata: map[string]any{"year": 2024}}); err != nil {
		log.Fatal(err)
	}
	matches, err := store.Search(ctx, vector.Query{Text: "channels", Filter: vector.Gte("year", 2020)})
	if err != nil {
		log.Fatal(err)
	}
	for _, m := range matches {
		fmt.Printf("%s %.2f\n", m.ID, m.Score)
	}
}
