package vectortest_test

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"slices"
	"sync"
	"testing"

	"github.com/loomwork/loom/vector"
	"github.com/loomwork/loom/vector/vectortest"
)

// reference is the plainest store that honours the contract, written to
// check the suite itself.
type reference struct {
	mu     sync.Mutex
	dims   int
	docs   map[string]vector.Document
	emb    *vector.HashEmbedder
	closed bool
}

func (r *reference) check(d *vector.Document) error {
	if d.ID == "" {
		return fmt.Errorf("%w: empty ID", vector.ErrInvalidDocument)
	}
	if d.Vector == nil {
		if d.Text == "" {
			return fmt.Errorf("%w: document %q has no text and no vector", vector.ErrInvalidDocument, d.ID)
		}
		d.Vector = r.emb.EmbedOne(d.Text)
	}
	if err := vector.CheckDimensions(fmt.Sprintf("document %q", d.ID), r.dims, d.Vector); err != nil {
		return err
	}
	if err := vector.CheckVector(vector.ErrInvalidDocument, fmt.Sprintf("document %q", d.ID), d.Vector); err != nil {
		return err
	}
	md, err := vector.NormalizeMetadata(d.Metadata)
	d.Metadata = md
	return err
}

func (r *reference) Upsert(_ context.Context, docs ...vector.Document) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return vector.ErrClosed
	}
	docs = slices.Clone(docs)
	for i := range docs {
		if err := r.check(&docs[i]); err != nil {
			return err
		}
	}
	for _, d := range docs {
		r.docs[d.ID] = d
	}
	return nil
}

func (r *reference) Delete(_ context.Context, ids ...string) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return vector.ErrClosed
	}
	for _, id := range ids {
		delete(r.docs, id)
	}
	return nil
}

func (r *reference) Search(_ context.Context, q vector.Query) ([]vector.Match, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return nil, vector.ErrClosed
	}
	q, err := q.Prepare()
	if err != nil {
		return nil, err
	}
	if q.Vector == nil {
		q.Vector = r.emb.EmbedOne(q.Text)
	}
	if err := vector.CheckDimensions("query", r.dims, q.Vector); err != nil {
		return nil, err
	}
	var out []vector.Match
	for _, d := range r.docs {
		if !q.Filter.Match(d.Metadata) {
			continue
		}
		var dot, na, nb float64
		for i := range d.Vector {
			dot += float64(d.Vector[i]) * float64(q.Vector[i])
			na += float64(d.Vector[i]) * float64(d.Vector[i])
			nb += float64(q.Vector[i]) * float64(q.Vector[i])
		}
		s := float32(dot / math.Sqrt(na*nb))
		if q.MinScore != 0 && s < q.MinScore {
			continue
		}
		if !q.WithVectors {
			d.Vector = nil
		}
		out = append(out, vector.Match{Document: d, Score: s})
	}
	slices.SortFunc(out, func(a, b vector.Match) int { return cmp.Compare(b.Score, a.Score) })
	return out[:min(q.K, len(out))], nil
}

func (r *reference) Dimensions() int { return r.dims }

func (r *reference) Close() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.closed = true
	return nil
}

func TestSuiteOnReference(t *testing.T) {
	vectortest.Run(t, func(t *testing.T, dims int) vector.Store {
		return &reference{dims: dims, docs: map[string]vector.Document{}, emb: vectortest.Embedder(dims)}
	}, vectortest.Options{
		Reopen: func(t *testing.T, s vector.Store) vector.Store {
			old := s.(*reference)
			_ = old.Close()
			return &reference{dims: old.dims, docs: old.docs, emb: old.emb}
		},
	})
}
