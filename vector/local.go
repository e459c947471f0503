package vector

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"sync"

	"github.com/loomwork/loom/model"
)

// local is the store logic of [Memory], in process or persistent:
// validation, embedding, locking and the index. A persister, when set,
// writes each change before the index applies it, so memory never holds
// what the database lost.
type local struct {
	dims    int          // fixed at open; read without the lock
	mu      sync.RWMutex // readers search; writers upsert, delete and close
	idx     *index
	emb     model.Embedder
	persist Persister // nil for a store in process only
	closed  bool
}

// row is a validated document with its vector; vec*inv is its unit
// vector. vec may be the caller's slice: it is read, never kept.
type row struct {
	entry
	vec []float32
	inv float32
}

func newLocal(o MemoryConfig) *local {
	return &local{dims: o.Dimensions, idx: newIndex(o.Dimensions, o.Int8, o.Parallelism), emb: o.Embedder}
}

// prepare validates docs, embeds those without vectors and normalises
// vectors and metadata. It takes no lock: embedding may be a network call.
func (s *local) prepare(ctx context.Context, docs []Document) ([]row, error) {
	dims := s.dims
	rows := make([]row, len(docs))
	var texts []string
	var need []int
	for i, d := range docs {
		what := func() string { return fmt.Sprintf("document %q", d.ID) }
		if d.ID == "" {
			return nil, fmt.Errorf("%w: document %d has an empty ID", ErrInvalidDocument, i)
		}
		md, err := NormalizeMetadata(d.Metadata)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", what(), err)
		}
		rows[i] = row{entry: entry{id: d.ID, text: d.Text, metadata: md}}
		if d.Vector == nil {
			if d.Text == "" {
				return nil, fmt.Errorf("%w: %s has no text and no vector", ErrInvalidDocument, what())
			}
			texts = append(texts, d.Text)
			need = append(need, i)
			continue
		}
		if len(d.Vector) != dims {
			return nil, CheckDimensions(what(), dims, d.Vector)
		}
		if rows[i].inv, err = unitScale(ErrInvalidDocument, what, d.Vector); err != nil {
			return nil, err
		}
		rows[i].vec = d.Vector
	}
	if len(texts) > 0 {
		vs, err := s.embed(ctx, texts)
		if err != nil {
			return nil, err
		}
		for j, i := range need {
			what := func() string { return fmt.Sprintf("document %q embedded from its text", docs[i].ID) }
			if rows[i].inv, err = unitScale(ErrInvalidDocument, what, vs[j]); err != nil {
				return nil, err
			}
			rows[i].vec = vs[j]
		}
	}
	return rows, nil
}

// embed embeds texts and checks the embedder kept its promises.
func (s *local) embed(ctx context.Context, texts []string) ([][]float32, error) {
	if s.emb == nil {
		return nil, fmt.Errorf("%w: give each document and query a Vector, or set MemoryConfig.Embedder", ErrNoEmbedder)
	}
	vs, err := s.emb.Embed(ctx, texts)
	if err != nil {
		return nil, fmt.Errorf("vector: embed %d texts with %s: %w", len(texts), s.emb.Name(), err)
	}
	if len(vs) != len(texts) {
		return nil, fmt.Errorf("vector: embedder %s returned %d vectors for %d texts", s.emb.Name(), len(vs), len(texts))
	}
	for _, v := range vs {
		if err := CheckDimensions("embedder "+s.emb.Name(), s.dims, v); err != nil {
			return nil, err
		}
	}
	return vs, nil
}

// Upsert stores docs, replacing documents with the same IDs. Documents
// without a Vector are embedded from their Text in one call to the
// embedder, before the store is locked. Nothing is stored when a document
// is invalid or the embedder fails.
func (s *local) Upsert(ctx context.Context, docs ...Document) error {
	if err := s.checkOpen(); err != nil {
		return err
	}
	if len(docs) == 0 {
		return nil
	}
	rows, err := s.prepare(ctx, docs)
	if err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return ErrClosed
	}
	if s.persist != nil {
		if err := s.persist.Upsert(ctx, stored(rows, s.dims)); err != nil {
			return err
		}
	}
	s.idx.reserve(len(rows))
	for _, r := range rows {
		s.idx.put(r.entry, r.vec, r.inv)
	}
	return nil
}

// Delete removes the documents with these ids; unknown ids are ignored.
func (s *local) Delete(ctx context.Context, ids ...string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return ErrClosed
	}
	if len(ids) == 0 {
		return nil
	}
	if s.persist != nil {
		if err := s.persist.Delete(ctx, ids); err != nil {
			return err
		}
	}
	for _, id := range ids {
		s.idx.remove(id)
	}
	return nil
}

// Search returns the q.K documents closest to q by cosine similarity,
// best first, among those passing q.Filter and scoring at least
// q.MinScore. It scans every vector (exact search), in parallel for large
// stores; many searches run at once, and a write waits for them.
func (s *local) Search(ctx context.Context, q Query) ([]Match, error) {
	if err := s.checkOpen(); err != nil {
		return nil, err
	}
	q, err := q.Prepare()
	if err != nil {
		return nil, err
	}
	v := q.Vector
	if v != nil {
		if err := CheckDimensions("query", s.dims, v); err != nil {
			return nil, err
		}
	} else {
		vs, err := s.embed(ctx, []string{q.Text})
		if err != nil {
			return nil, err
		}
		v = vs[0]
	}
	inv, err := unitScale(ErrInvalidQuery, func() string { return fmt.Sprintf("query text %q", q.Text) }, v)
	if err != nil {
		return nil, err
	}
	unit := make([]float32, len(v))
	scaleInto(unit, v, inv)
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	if s.closed {
		return nil, ErrClosed
	}
	hits := s.idx.search(unit, q.K, q.MinScore, q.MinScore != 0, q.Filter)
	out := make([]Match, len(hits))
	for i, h := range hits {
		e := s.idx.entries[h.row]
		out[i] = Match{Score: h.score, Document: Document{
			ID: e.id, Text: e.text, Metadata: cloneMetadata(e.metadata),
		}}
		if q.WithVectors {
			out[i].Vector = s.idx.vector(int(h.row))
		}
	}
	return out, nil
}

// Len returns the number of stored documents.
func (s *local) Len() int {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.idx.len()
}

// Dimensions returns the length of every stored vector.
func (s *local) Dimensions() int { return s.dims }

// Close releases the store. Later calls fail with [ErrClosed]; a second
// Close returns nil.
func (s *local) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil
	}
	s.closed = true
	s.idx = newIndex(s.idx.dims, s.idx.int8, s.idx.workers)
	if s.persist != nil {
		return s.persist.Close()
	}
	return nil
}

func (s *local) checkOpen() error {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if s.closed {
		return ErrClosed
	}
	return nil
}

// cloneMetadata copies normalised metadata so callers cannot change the
// stored map or its lists.
func cloneMetadata(m map[string]any) map[string]any {
	if m == nil {
		return nil
	}
	out := maps.Clone(m)
	for k, v := range out {
		if l, ok := v.([]string); ok {
			out[k] = slices.Clone(l)
		}
	}
	return out
}
