package vector_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/loomwork/loom/vector"
	"github.com/loomwork/loom/vector/vectortest"
)

func TestMemoryConformance(t *testing.T) {
	vectortest.Run(t, func(t *testing.T, dims int) vector.Store {
		s, err := vector.NewMemory(vector.MemoryConfig{Dimensions: dims, Embedder: vectortest.Embedder(dims)})
		require.NoError(t, err)
		return s
	}, vectortest.Options{})
}

func TestMemoryInt8Conformance(t *testing.T) {
	vectortest.Run(t, func(t *testing.T, dims int) vector.Store {
		s, err := vector.NewMemory(vector.MemoryConfig{Embedder: vectortest.Embedder(dims), Int8: true})
		require.NoError(t, err)
		return s
	}, vectortest.Options{ScoreTolerance: 0.02})
}

func TestMemoryParallelConformance(t *testing.T) {
	// Parallelism with a tiny work threshold is covered by the index
	// tests; here the suite runs with one goroutine per search.
	vectortest.Run(t, func(t *testing.T, dims int) vector.Store {
		s, err := vector.NewMemory(vector.MemoryConfig{Embedder: vectortest.Embedder(dims), Parallelism: 1})
		require.NoError(t, err)
		return s
	}, vectortest.Options{})
}

func TestNewMemoryOptions(t *testing.T) {
	e := vectortest.Embedder(16)
	for _, tc := range []struct {
		name string
		o    vector.MemoryConfig
		msg  string
	}{
		{"no dimensions", vector.MemoryConfig{}, "no dimensions: set MemoryConfig.Dimensions or MemoryConfig.Embedder"},
		{"negative dimensions", vector.MemoryConfig{Dimensions: -3}, "Dimensions is -3"},
		{"negative parallelism", vector.MemoryConfig{Dimensions: 3, Parallelism: -1}, "Parallelism is -1"},
		{"embedder disagrees", vector.MemoryConfig{Dimensions: 8, Embedder: e}, "embedder hash:16 has 16 dimensions, the store has 8"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := vector.NewMemory(tc.o)
			require.ErrorContains(t, err, tc.msg)
		})
	}
	s, err := vector.NewMemory(vector.MemoryConfig{Embedder: e})
	require.NoError(t, err)
	require.Equal(t, 16, s.Dimensions())
	require.NoError(t, s.Close())
}

// badEmbedder returns what it is told to, to test how stores check it.
type badEmbedder struct {
	dims int
	out  [][]float32
	err  error
}

func (b badEmbedder) Embed(context.Context, []string) ([][]float32, error) { return b.out, b.err }
func (b badEmbedder) Dimensions() int                                      { return b.dims }
func (b badEmbedder) Name() string                                         { return "bad:1" }

func TestMemoryEmbedderErrors(t *testing.T) {
	ctx := context.Background()
	s, err := vector.NewMemory(vector.MemoryConfig{Dimensions: 2})
	require.NoError(t, err)
	err = s.Upsert(ctx, vector.Document{ID: "a", Text: "hello"})
	require.ErrorIs(t, err, vector.ErrNoEmbedder)
	require.ErrorContains(t, err, "MemoryConfig.Embedder")
	_, err = s.Search(ctx, vector.Query{Text: "hello"})
	require.ErrorIs(t, err, vector.ErrNoEmbedder)

	boom := errors.New("boom")
	for _, tc := range []struct {
		name string
		e    badEmbedder
		is   error
		msg  string
	}{
		{"error", badEmbedder{dims: 2, err: boom}, boom, "embed 1 texts with bad:1: boom"},
		{"count", badEmbedder{dims: 2, out: [][]float32{{1, 0}, {0, 1}}}, nil, "returned 2 vectors for 1 texts"},
		{"size", badEmbedder{dims: 2, out: [][]float32{{1, 0, 0}}}, vector.ErrDimension, "embedder bad:1 has 3 dimensions, the store has 2"},
		{"zero", badEmbedder{dims: 2, out: [][]float32{{0, 0}}}, vector.ErrInvalidDocument, "all zeros"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := vector.NewMemory(vector.MemoryConfig{Embedder: tc.e})
			require.NoError(t, err)
			err = s.Upsert(ctx, vector.Document{ID: "a", Text: "hello"})
			if tc.is != nil {
				require.ErrorIs(t, err, tc.is)
			}
			require.ErrorContains(t, err, tc.msg)
			require.Zero(t, s.Len())
		})
	}
}

// TestMemoryParallelSearch checks that a search split across goroutines
// returns what one goroutine returns, with and without a filter.
func TestMemoryParallelSearch(t *testing.T) {
	ctx := context.Background()
	const dims, n = 128, 6000
	r := rand.New(rand.NewPCG(1, 2))
	docs := make([]vector.Document, n)
	for i := range docs {
		v := make([]float32, dims)
		for j := range v {
			v[j] = float32(r.NormFloat64())
		}
		docs[i] = vector.Document{ID: fmt.Sprint(i), Vector: v, Metadata: map[string]any{"odd": i%2 == 1}}
	}
	open := func(p int, int8 bool) *vector.Memory {
		s, err := vector.NewMemory(vector.MemoryConfig{Dimensions: dims, Parallelism: p, Int8: int8})
		require.NoError(t, err)
		require.NoError(t, s.Upsert(ctx, docs...))
		require.Equal(t, n, s.Len())
		return s
	}
	for _, int8 := range []bool{false, true} {
		one, four := open(1, int8), open(4, int8)
		for _, f := range []*vector.Filter{nil, vector.Eq("odd", true)} {
			q := vector.Query{Vector: docs[17].Vector, K: 25, Filter: f}
			a, err := one.Search(ctx, q)
			require.NoError(t, err)
			b, err := four.Search(ctx, q)
			require.NoError(t, err)
			require.Equal(t, a, b)
			require.Len(t, a, 25)
		}
	}
}

// TestMemoryCloseWhileInUse closes a store while others use it: calls
// either finish or fail with ErrClosed, and the race detector sees no race.
func TestMemoryCloseWhileInUse(t *testing.T) {
	ctx := context.Background()
	s, err := vector.NewMemory(vector.MemoryConfig{Dimensions: 2})
	require.NoError(t, err)
	var wg sync.WaitGroup
	for i := range 4 {
		wg.Go(func() {
			for j := range 200 {
				_ = s.Dimensions()
				err := s.Upsert(ctx, vector.Document{ID: fmt.Sprint(i, "-", j), Vector: []float32{1, float32(j)}})
				if err != nil {
					assert.ErrorIs(t, err, vector.ErrClosed)
				}
				_, err = s.Search(ctx, vector.Query{Vector: []float32{1, 0}})
				if err != nil {
					assert.ErrorIs(t, err, vector.ErrClosed)
				}
			}
		})
	}
	require.NoError(t, s.Close())
	wg.Wait()
	require.Equal(t, 2, s.Dimensions())
	require.Zero(t, s.Len(), "a closed store lets its vectors go")
}

func TestMemoryHugeK(t *testing.T) {
	s, err := vector.NewMemory(vector.MemoryConfig{Dimensions: 2})
	require.NoError(t, err)
	require.NoError(t, s.Upsert(context.Background(), vector.Document{ID: "a", Vector: []float32{1, 0}}))
	ms, err := s.Search(context.Background(), vector.Query{Vector: []float32{1, 1}, K: 1 << 40})
	require.NoError(t, err, "a K far beyond the store allocates for what is stored")
	require.Len(t, ms, 1)
}
