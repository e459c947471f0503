package chroma_test

import (
	"cmp"
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

// TestConformanceSchemaless runs the suite against a fake that reports no
// collection schema, as Chroma servers before schemas, so Upsert reads the
// stored metadata of each batch instead.
func TestConformanceSchemaless(t *testing.T) {
	f := startFake(t)
	f.schemaless = true
	c := client(t, f)
	var n atomic.Int64
	open := func(t *testing.T, dims int) vector.Store {
		s, err := chroma.Open(context.Background(), chroma.Config{Client: c, Collection: fmt.Sprintf("c%d", n.Add(1)),
			Dimensions: dims, Embedder: vectortest.Embedder(dims)})
		require.NoError(t, err)
		return s
	}
	vectortest.Run(t, open, vectortest.Options{})
	require.NotEmpty(t, f.calls("/get"), "the stored metadata was read")
}

// ChromaURLEnv names a real Chroma server for TestConformanceRealServer;
// .ci/vector.sh starts one (npm's chromadb CLI embeds the real server).
const ChromaURLEnv = "LOOM_TEST_CHROMA_URL"

// realClient returns a client of the real server named by ChromaURLEnv, or
// skips (fails under CI, which starts one).
func realClient(t testing.TB) chromago.Client {
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

// TestRealServerSchemaListsKeys checks what Upsert relies on to skip
// reading records: the real server lists every metadata key written to a
// collection in the schema it reports, at once, and keeps the key after
// the only record carrying it drops it.
func TestRealServerSchemaListsKeys(t *testing.T) {
	c := realClient(t)
	ctx := context.Background()
	name := fmt.Sprintf("loom%d-keys", time.Now().UnixNano())
	s, err := chroma.Open(ctx, chroma.Config{Client: c, Collection: name, Dimensions: 2})
	require.NoError(t, err)
	t.Cleanup(func() { _ = c.DeleteCollection(context.Background(), name) })
	keys := func() []string {
		col, err := c.GetCollection(ctx, name)
		require.NoError(t, err)
		require.NotNil(t, col.Schema(), "the server reports a schema")
		var out []string
		for _, k := range col.Schema().Keys() {
			if k[0] != '#' {
				out = append(out, k)
			}
		}
		return out
	}
	require.NoError(t, s.Upsert(ctx, vector.Document{ID: "a", Vector: []float32{1, 0},
		Metadata: map[string]any{"s": "x", "n": 1, "f": 1.5, "b": true, "l": []string{"y"}}}))
	require.ElementsMatch(t, []string{"s", "n", "f", "b", "l"}, keys())
	require.NoError(t, s.Upsert(ctx, vector.Document{ID: "a", Vector: []float32{1, 0}, Metadata: map[string]any{"s": "x"}}))
	require.ElementsMatch(t, []string{"s", "n", "f", "b", "l"}, keys())
	ms, err := s.Search(ctx, vector.Query{Vector: []float32{1, 0}, K: 1})
	require.NoError(t, err)
	require.Equal(t, map[string]any{"s": "x"}, ms[0].Metadata, "the keys the document dropped are gone")
}

// TestSearchWaitsForTheIndex: a query that meets a collection's vector
// index before the server has written it is sent again, a bounded number
// of times, and a server that keeps answering so is reported.
func TestSearchWaitsForTheIndex(t *testing.T) {
	for _, tc := range []struct {
		name    string
		missing int
		message string // the server's error; "" for an index not on disk
		wantErr bool
	}{
		{"ready at once", 0, "", false},
		{"ready at the third query", 2, "", false},
		{"never ready", 100, "", true},
		{"an id the index lists is not readable yet", 2, "Error executing plan: Internal error: Error finding id", false},
		{"an id stays unreadable", 100, "Error executing plan: Internal error: Error finding id", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := startFake(t)
			s, err := chroma.Open(t.Context(), chroma.Config{Client: client(t, f), Collection: "c", Dimensions: vectortest.Dims, Embedder: vectortest.Embedder(vectortest.Dims)})
			require.NoError(t, err)
			require.NoError(t, s.Upsert(t.Context(), vector.Document{ID: "a", Text: "alpha"}))
			f.mu.Lock()
			f.indexMissing, f.indexMessage = tc.missing, tc.message
			f.mu.Unlock()
			got, err := s.Search(t.Context(), vector.Query{Text: "alpha", K: 1})
			queries := len(f.calls("/query"))
			if tc.wantErr {
				require.ErrorContains(t, err, cmp.Or(tc.message, "Nothing found on disk"))
				require.Equal(t, 8, queries, "the first query and 7 more")
				return
			}
			require.NoError(t, err)
			require.Len(t, got, 1)
			require.Equal(t, "a", got[0].ID)
			require.Equal(t, tc.missing+1, queries)
		})
	}
}
