package chroma_test

import (
	"context"
	"fmt"
	"os"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	chromago "github.com/amikos-tech/chroma-go/pkg/api/v2"
	"github.com/stretchr/testify/require"

	"github.com/loomwork/loom/vector"
	"github.com/loomwork/loom/vector/chroma"
	"github.com/loomwork/loom/vector/vectortest"
)

// client returns a chroma-go HTTP client for the fake, closed when t ends.
func client(t *testing.T, f *fake) chromago.Client {
	t.Helper()
	c, err := chromago.NewHTTPClient(chromago.WithBaseURL(f.srv.URL))
	require.NoError(t, err)
	t.Cleanup(func() { _ = c.Close() })
	return c
}

func TestConformance(t *testing.T) {
	f := startFake(t)
	c := client(t, f)
	var n atomic.Int64
	open := func(t *testing.T, dims int) vector.Store {
		s, err := chroma.Open(context.Background(), chroma.Config{Client: c, Collection: fmt.Sprintf("c%d", n.Add(1)),
			Dimensions: dims, Embedder: vectortest.Embedder(dims)})
		require.NoError(t, err)
		return s
	}
	reopen := func(t *testing.T, s vector.Store) vector.Store {
		require.NoError(t, s.Close())
		s2, err := chroma.Open(context.Background(), chroma.Config{Client: client(t, f), Collection: fmt.Sprintf("c%d", n.Load()),
			Dimensions: vectortest.Dims, Embedder: vectortest.Embedder(vectortest.Dims)})
		require.NoError(t, err)
		return s2
	}
	vectortest.Run(t, open, vectortest.Options{Reopen: reopen})

	without := []any{"documents", "metadatas", "distances"}
	with := []any{"documents", "metadatas", "distances", "embeddings"}
	seen := map[bool]bool{}
	for _, q := range f.calls("/query") {
		asked := slices.Contains(q.Body["include"].([]any), any("embeddings"))
		seen[asked] = true
		if asked {
			require.Equal(t, with, q.Body["include"], "embeddings only for a query WithVectors")
		} else {
			require.Equal(t, without, q.Body["include"])
		}
	}
	require.Equal(t, map[bool]bool{false: true, true: true}, seen, "queries with and without vectors")
	for _, c := range f.calls("/collections") {
		require.Equal(t, map[string]any{"hnsw:space": "cosine"}, c.Body["metadata"], "collections use cosine distance")
		require.NotContains(t, c.Body, "configuration", "no embedding function is recorded")
		require.Equal(t, true, c.Body["get_or_create"])
	}
}

// ChromaURLEnv names a real Chroma server for TestConformanceRealServer;
// .ci/vector.sh starts one (npm's chromadb CLI embeds the real server).
const ChromaURLEnv = "LOOM_TEST_CHROMA_URL"

// realClient returns a client of the real server named by ChromaURLEnv, or
// skips (fails under CI, which starts one).
func realClient(t *testing.T) chromago.Client {
	t.Helper()
	url := os.Getenv(ChromaURLEnv)
	if url == "" {
		if os.Getenv("CI") != "" {
			t.Fatalf("%s is not set: .ci/vector.sh starts a Chroma server and sets it", ChromaURLEnv)
		}
		t.Skipf("%s is not set: start `chroma run --path DIR --port PORT` (npm's chromadb) and set it to http://127.0.0.1:PORT", ChromaURLEnv)
	}
	c, err := chromago.NewHTTPClient(chromago.WithBaseURL(url))
	require.NoError(t, err)
	t.Cleanup(func() { _ = c.Close() })
	return c
}

// TestConformanceRealServer runs the conformance suite against a real
// Chroma server, each store on a collection of its own.
func TestConformanceRealServer(t *testing.T) {
	c := realClient(t)
	prefix := fmt.Sprintf("loom%d", time.Now().UnixNano())
	var n atomic.Int64
	open := func(t *testing.T, dims int) vector.Store {
		s, err := chroma.Open(context.Background(), chroma.Config{Client: c, Collection: fmt.Sprintf("%s-%d", prefix, n.Add(1)),
			Dimensions: dims, Embedder: vectortest.Embedder(dims)})
		require.NoError(t, err)
		return s
	}
	reopen := func(t *testing.T, s vector.Store) vector.Store {
		require.NoError(t, s.Close())
		s2, err := chroma.Open(context.Background(), chroma.Config{Client: realClient(t), Collection: fmt.Sprintf("%s-%d", prefix, n.Load()),
			Dimensions: vectortest.Dims, Embedder: vectortest.Embedder(vectortest.Dims)})
		require.NoError(t, err)
		return s2
	}
	vectortest.Run(t, open, vectortest.Options{Reopen: reopen})
}
