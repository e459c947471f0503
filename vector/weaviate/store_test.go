package weaviate_test

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"
	wv "github.com/weaviate/weaviate-go-client/v5/weaviate"

	"github.com/loomwork/loom/vector"
	"github.com/loomwork/loom/vector/vectortest"
	"github.com/loomwork/loom/vector/weaviate"
)

func client(t *testing.T, f *fake) *wv.Client {
	t.Helper()
	c, err := wv.NewClient(wv.Config{Host: f.host(), Scheme: "http"})
	require.NoError(t, err)
	return c
}

func TestConformance(t *testing.T) {
	f := startFake(t)
	c := client(t, f)
	var n atomic.Int64
	open := func(t *testing.T, dims int) vector.Store {
		s, err := weaviate.Open(context.Background(), weaviate.Config{Client: c, Class: fmt.Sprintf("Docs%d", n.Add(1)),
			Dimensions: dims, Embedder: vectortest.Embedder(dims)})
		require.NoError(t, err)
		return s
	}
	reopen := func(t *testing.T, s vector.Store) vector.Store {
		require.NoError(t, s.Close())
		s2, err := weaviate.Open(context.Background(), weaviate.Config{Client: client(t, f), Class: fmt.Sprintf("Docs%d", n.Load()),
			Dimensions: vectortest.Dims, Embedder: vectortest.Embedder(vectortest.Dims)})
		require.NoError(t, err)
		return s2
	}
	vectortest.Run(t, open, vectortest.Options{Reopen: reopen})

	for _, r := range f.calls("POST", "/v1/schema") {
		def := r.Body.(map[string]any)
		require.Equal(t, "none", def["vectorizer"])
		require.Equal(t, map[string]any{"distance": "cosine"}, def["vectorIndexConfig"])
	}
}
