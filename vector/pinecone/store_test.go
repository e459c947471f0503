package pinecone_test

import (
	"fmt"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/loomwork/loom/vector"
	"github.com/loomwork/loom/vector/pinecone"
	"github.com/loomwork/loom/vector/vectortest"
)

func TestConformance(t *testing.T) {
	f, host := startFake(t, vectortest.Dims)
	var spaces atomic.Int64
	open := func(t *testing.T, dims int) vector.Store {
		ns := fmt.Sprintf("ns-%d", spaces.Add(1))
		s, err := pinecone.New(pinecone.Config{Index: connect(t, host, ns), Dimensions: dims, Embedder: vectortest.Embedder(dims)})
		require.NoError(t, err)
		return s
	}
	reopen := func(t *testing.T, s vector.Store) vector.Store {
		ns := fmt.Sprintf("ns-%d", spaces.Load())
		require.NoError(t, s.Close())
		s2, err := pinecone.New(pinecone.Config{Index: connect(t, host, ns), Dimensions: vectortest.Dims, Embedder: vectortest.Embedder(vectortest.Dims)})
		require.NoError(t, err)
		return s2
	}
	vectortest.Run(t, open, vectortest.Options{Reopen: reopen})

	for _, r := range f.calls("") {
		require.Equal(t, fakeAPIKey, r.APIKey, "every %s call carries the API key", r.Method)
	}
	for _, q := range f.calls("Query") {
		if q.Body["topK"].(float64) <= pinecone.MaxKWithMetadata {
			require.Equal(t, true, q.Body["includeMetadata"], "queries ask for metadata, which holds the text")
		}
	}
	require.NotEmpty(t, f.calls("Fetch"), "the suite's K=10000 searches fetch their records")
}
