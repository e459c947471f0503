package chroma_test

import (
	"context"
	"fmt"
	"log"

	chromago "github.com/amikos-tech/chroma-go/pkg/api/v2"

	"github.com/loomwork/loom/vector"
	"github.com/loomwork/loom/vector/chroma"
)

// Open a store on a Chroma server's collection and search it. (Not run:
// it needs a Chroma server.)
func ExampleOpen() {
	ctx := context.Background()
	client, err := chromago.NewHTTPClient(chromago.WithBaseURL("http://127.0.0.1:8000"))
	if err != nil {
		log.Fatal(err)
	}
	defer client.Close()
	emb, err := vector.NewHashEmbedder(256) // use a provider's embedder for semantic search
	if err != nil {
		log.Fatal(err)
	}
	store, err := chroma.Open(ctx, chroma.Config{Client: client, Collection: "docs", Embedder: emb})
	if err != nil {
		log.Fatal(err)
	}
	defer store.Close()
	if err := store.Upsert(ctx, vector.Document{ID: "1", Text: "goroutines and channels", Metadata: map[string]any{"tags": []string{"go"}}}); err != nil {
		log.Fatal(err)
	}
	matches, err := store.Search(ctx, vector.Query{Text: "channels", Filter: vector.Eq("tags", "go")})
	if err != nil {
		log.Fatal(err)
	}
	for _, m := range matches {
		fmt.Printf("%s %.2f\n", m.ID, m.Score)
	}
}
