package pinecone_test

import (
	"context"
	"fmt"
	"log"

	pc "github.com/pinecone-io/go-pinecone/v5/pinecone"

	"github.com/loomwork/loom/vector"
	"github.com/loomwork/loom/vector/pinecone"
)

// Wrap a connection to a Pinecone index (metric cosine) in a store and
// search it. (Not run: it needs a Pinecone index.)
func ExampleNew() {
	ctx := context.Background()
	client, err := pc.NewClient(pc.NewClientParams{ApiKey: "YOUR_API_KEY"})
	if err != nil {
		log.Fatal(err)
	}
	idx, err := client.Index(pc.NewIndexConnParams{Host: "https://YOUR-INDEX-HOST", Namespace: "docs"})
	if err != nil {
		log.Fatal(err)
	}
	defer idx.Close()
	emb, err := vector.NewHashEmbedder(256) // the index's dimension; use a provider's embedder for semantic search
	if err != nil {
		log.Fatal(err)
	}
	store, err := pinecone.New(pinecone.Config{Index: idx, Embedder: emb})
	if err != nil {
		log.Fatal(err)
	}
	defer store.Close()
	matches, err := store.Search(ctx, vector.Query{Text: "channels", K: 3, Filter: vector.Gte("year", 2020)})
	if err != nil {
		log.Fatal(err)
	}
	for _, m := range matches {
		fmt.Printf("%s %.2f\n", m.ID, m.Score)
	}
}
