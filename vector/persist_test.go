package vector_test

import (
	"context"
	"errors"
	"iter"
	"maps"
	"slices"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/loomwork/loom/vector"
	"github.com/loomwork/loom/vector/vectortest"
)

// mapPersister keeps stored documents in a map, as a database would.
type mapPersister struct {
	mu     sync.Mutex
	docs   map[string]vector.StoredDocument
	fail   error
	closed int
}

func (p *mapPersister) Upsert(_ context.Context, docs []vector.StoredDocument) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.fail != nil {
		return p.fail
	}
	for _, d := range docs {
		d.Vector = slices.Clone(d.Vector) // valid only during the call
		p.docs[d.ID] = d
	}
	return nil
}

func (p *mapPersister) Delete(_ context.Context, ids []string) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.fail != nil {
		return p.fail
	}
	for _, id := range ids {
		delete(p.docs, id)
	}
	return nil
}

func (p *mapPersister) Close() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.closed++
	return nil
}

func (p *mapPersister) stored() iter.Seq2[vector.StoredDocument, error] {
	return func(yield func(vector.StoredDocument, error) bool) {
		for _, d := range maps.Clone(p.docs) {
			if !yield(d, nil) {
				return
			}
		}
	}
}

func openPersistent(t *testing.T, p *mapPersister, o vector.MemoryConfig) *vector.Memory {
	t.Helper()
	m, err := vector.NewPersistentMemory(o, vector.Persistence{Persister: p, Count: len(p.docs), Stored: p.stored()})
	require.NoError(t, err)
	return m
}

func TestPersistentMemoryConformance(t *testing.T) {
	persisters := map[vector.Store]*mapPersister{}
	vectortest.Run(t, func(t *testing.T, dims int) vector.Store {
		p := &mapPersister{docs: map[string]vector.StoredDocument{}}
		s := openPersistent(t, p, vector.MemoryConfig{Embedder: vectortest.Embedder(dims)})
		persisters[s] = p
		return s
	}, vectortest.Options{
		Reopen: func(t *testing.T, s vector.Store) vector.Store {
			p := persisters[s]
			require.NoError(t, s.Close())
			require.Equal(t, 1, p.closed, "Close closes the persister once")
			re := openPersistent(t, p, vector.MemoryConfig{Embedder: vectortest.Embedder(s.Dimensions())})
			persisters[re] = p
			return re
		},
	})
}

func TestPersistentMemoryWritesUnitVectorsFirst(t *testing.T) {
	ctx := context.Background()
	p := &mapPersister{docs: map[string]vector.StoredDocument{}}
	s := openPersistent(t, p, vector.MemoryConfig{Dimensions: 2})
	defer s.Close()
	require.NoError(t, s.Upsert(ctx, vector.Document{ID: "a", Vector: []float32{3, 4}, Metadata: map[string]any{"n": 1}}))
	require.Equal(t, vector.StoredDocument{ID: "a", Vector: []float32{0.6, 0.8}, Metadata: map[string]any{"n": 1.0}}, p.docs["a"])

	p.fail = errors.New("disk full")
	require.ErrorContains(t, s.Upsert(ctx, vector.Document{ID: "b", Vector: []float32{1, 0}}), "disk full")
	require.ErrorContains(t, s.Delete(ctx, "a"), "disk full")
	require.Equal(t, 1, s.Len(), "a change the persister refused does not reach the index")
}

func TestNewPersistentMemoryErrors(t *testing.T) {
	p := &mapPersister{docs: map[string]vector.StoredDocument{}}
	docs := func(ds ...vector.StoredDocument) iter.Seq2[vector.StoredDocument, error] {
		return func(yield func(vector.StoredDocument, error) bool) {
			for _, d := range ds {
				if !yield(d, nil) {
					return
				}
			}
		}
	}
	loadErr := func(yield func(vector.StoredDocument, error) bool) {
		yield(vector.StoredDocument{}, errors.New("bad page"))
	}
	for _, tc := range []struct {
		name string
		opts vector.MemoryConfig
		p    vector.Persistence
		want string
		is   error
	}{
		{"no persister", vector.MemoryConfig{Dimensions: 2}, vector.Persistence{}, "Persistence.Persister is nil", nil},
		{"no dimensions", vector.MemoryConfig{}, vector.Persistence{Persister: p}, "no dimensions", nil},
		{"negative count", vector.MemoryConfig{Dimensions: 2}, vector.Persistence{Persister: p, Count: -1}, "Persistence.Count is -1", nil},
		{"load error", vector.MemoryConfig{Dimensions: 2}, vector.Persistence{Persister: p, Stored: loadErr}, "bad page", nil},
		{"wrong dimensions", vector.MemoryConfig{Dimensions: 2}, vector.Persistence{Persister: p,
			Stored: docs(vector.StoredDocument{ID: "a", Vector: []float32{1, 0, 0}})}, `stored document "a"`, vector.ErrDimension},
		{"zero vector", vector.MemoryConfig{Dimensions: 2}, vector.Persistence{Persister: p,
			Stored: docs(vector.StoredDocument{ID: "a", Vector: []float32{0, 0}})}, `stored document "a"`, vector.ErrInvalidDocument},
		{"empty id", vector.MemoryConfig{Dimensions: 2}, vector.Persistence{Persister: p,
			Stored: docs(vector.StoredDocument{Vector: []float32{1, 0}})}, "empty ID", vector.ErrInvalidDocument},
		{"bad metadata", vector.MemoryConfig{Dimensions: 2}, vector.Persistence{Persister: p,
			Stored: docs(vector.StoredDocument{ID: "a", Vector: []float32{1, 0}, Metadata: map[string]any{"x": struct{}{}}})}, `stored document "a"`, vector.ErrInvalidDocument},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := vector.NewPersistentMemory(tc.opts, tc.p)
			require.ErrorContains(t, err, tc.want)
			if tc.is != nil {
				require.ErrorIs(t, err, tc.is)
			}
		})
	}
}

func TestPersistentMemoryScalesStoredVectors(t *testing.T) {
	p := &mapPersister{docs: map[string]vector.StoredDocument{"a": {ID: "a", Text: "t", Vector: []float32{0, 2}}}}
	s := openPersistent(t, p, vector.MemoryConfig{Dimensions: 2})
	defer s.Close()
	ms, err := s.Search(context.Background(), vector.Query{Vector: []float32{0, 1}, K: 1, WithVectors: true})
	require.NoError(t, err)
	require.Equal(t, []float32{0, 1}, ms[0].Vector)
	require.InDelta(t, 1, ms[0].Score, 1e-6)
}

func TestOptionsResolve(t *testing.T) {
	o, err := vector.MemoryConfig{Embedder: vectortest.Embedder(8)}.Resolve()
	require.NoError(t, err)
	require.Equal(t, 8, o.Dimensions)
	require.Positive(t, o.Parallelism)
	_, err = vector.MemoryConfig{Dimensions: -1}.Resolve()
	require.ErrorContains(t, err, "Dimensions is -1")
}
