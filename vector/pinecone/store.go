package pinecone

import (
	"context"
	"errors"
	"fmt"

	"github.com/pinecone-io/go-pinecone/v5/pinecone"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/loomwork/loom/model"
	"github.com/loomwork/loom/vector"
)

const (
	// DefaultTextKey is the metadata key that holds a document's text
	// when [Config.TextKey] is empty.
	DefaultTextKey = "loom_text"
	// DefaultBatchSize is the number of vectors per upsert request when
	// [Config.BatchSize] is zero.
	DefaultBatchSize = 100
	// MaxBatchSize is Pinecone's limit of vectors per upsert request.
	MaxBatchSize = 1000
	// MaxK is the most matches Pinecone returns for one query.
	MaxK = 10000
	// MaxKWithMetadata is the most matches Pinecone returns for one query
	// with their metadata and values; past it the store fetches them.
	MaxKWithMetadata = 1000
	// fetchBatch is the most ids the store fetches in one request.
	fetchBatch = 1000
)

// ErrConfig marks a [Config] that cannot make a store; the message says
// which field is wrong.
var ErrConfig = errors.New("pinecone: invalid config")

// Config says which index a [Store] uses and how.
type Config struct {
	// Index is the connection to the index (and namespace) to use, from
	// [pinecone.Client.Index]. The index's metric must be cosine. The
	// caller keeps and closes it.
	Index *pinecone.IndexConnection
	// Dimensions is the index's dimension. Zero takes the Embedder's;
	// negative is an error.
	Dimensions int
	// Embedder embeds documents and queries given as text. Nil: every
	// document and query must carry a vector.
	Embedder model.Embedder
	// TextKey is the metadata key holding the text. Empty means
	// [DefaultTextKey].
	TextKey string
	// BatchSize is the number of vectors per upsert request: zero means
	// [DefaultBatchSize]; negative or above [MaxBatchSize] is an error.
	// Pinecone also caps a request at 2 MB, which 1000 vectors of 1536
	// dimensions exceed.
	BatchSize int
}

// Store is a [vector.Store] on a Pinecone index. It is safe for concurrent
// use.
type Store struct {
	idx     *pinecone.IndexConnection
	dims    int
	emb     model.Embedder
	textKey string
	batch   int

	gate vector.Gate // calls in flight; closed by Close
}

var _ vector.Store = (*Store)(nil)

// New returns a store on cfg.Index. It sends no request.
func New(cfg Config) (*Store, error) {
	if cfg.Index == nil {
		return nil, fmt.Errorf("%w: Index is nil; create one with pinecone.Client.Index", ErrConfig)
	}
	dims, err := vector.ConfigDimensions(cfg.Dimensions, cfg.Embedder, ErrConfig)
	if err != nil {
		return nil, err
	}
	switch {
	case cfg.BatchSize < 0 || cfg.BatchSize > MaxBatchSize:
		return nil, fmt.Errorf("%w: BatchSize is %d; use 0 for %d, or 1 to %d", ErrConfig, cfg.BatchSize, DefaultBatchSize, MaxBatchSize)
	case cfg.BatchSize == 0:
		cfg.BatchSize = DefaultBatchSize
	}
	if cfg.TextKey == "" {
		cfg.TextKey = DefaultTextKey
	}
	return &Store{idx: cfg.Index, dims: dims, emb: cfg.Embedder, textKey: cfg.TextKey, batch: cfg.BatchSize}, nil
}

// Dimensions returns the length of every stored vector.
func (s *Store) Dimensions() int { return s.dims }

// Close marks the store closed; later calls fail with [vector.ErrClosed].
// The index connection stays open.
func (s *Store) Close() error {
	s.gate.Close()
	return nil
}

// Upsert writes docs in batches, replacing records with the same ids.
func (s *Store) Upsert(ctx context.Context, docs ...vector.Document) error {
	if err := s.gate.Enter("pinecone"); err != nil {
		return err
	}
	defer s.gate.Exit()
	docs, err := vector.PrepareDocuments(ctx, s.emb, s.dims, docs)
	if err != nil {
		return err
	}
	vecs := make([]*pinecone.Vector, len(docs))
	for i, d := range docs {
		if vecs[i], err = s.record(d); err != nil {
			return err
		}
	}
	for start := 0; start < len(vecs); start += s.batch {
		part := vecs[start:min(start+s.batch, len(vecs))]
		if _, err := s.idx.UpsertVectors(ctx, part); err != nil {
			return fmt.Errorf("pinecone: upsert %d vectors (%d of %d already written): %w", len(part), start, len(vecs), err)
		}
	}
	return nil
}

// record converts a prepared document to a Pinecone vector, its text under
// the text key.
func (s *Store) record(d vector.Document) (*pinecone.Vector, error) {
	if _, ok := d.Metadata[s.textKey]; ok {
		return nil, fmt.Errorf("%w: document %q: metadata key %q holds the text in Pinecone; rename the key or set Config.TextKey", vector.ErrInvalidDocument, d.ID, s.textKey)
	}
	fields := make(map[string]any, len(d.Metadata)+1)
	for k, v := range d.Metadata {
		if list, ok := v.([]string); ok {
			anys := make([]any, len(list))
			for i, e := range list {
				anys[i] = e
			}
			v = anys
		}
		fields[k] = v
	}
	fields[s.textKey] = d.Text
	meta, err := structpb.NewStruct(fields)
	if err != nil {
		return nil, fmt.Errorf("%w: document %q: metadata: %w", vector.ErrInvalidDocument, d.ID, err)
	}
	values := d.Vector
	return &pinecone.Vector{Id: d.ID, Values: &values, Metadata: meta}, nil
}

// Delete removes the records with these ids; unknown ids are ignored.
func (s *Store) Delete(ctx context.Context, ids ...string) error {
	if err := s.gate.Enter("pinecone"); err != nil {
		return err
	}
	defer s.gate.Exit()
	for start := 0; start < len(ids); start += MaxBatchSize {
		part := ids[start:min(start+MaxBatchSize, len(ids))]
		if err := s.idx.DeleteVectorsById(ctx, part); err != nil {
			return fmt.Errorf("pinecone: delete %d ids: %w", len(part), err)
		}
	}
	return nil
}

// Search sends one query with the filter and K, and returns the matches
// scoring at least q.MinScore, best first.
func (s *Store) Search(ctx context.Context, q vector.Query) ([]vector.Match, error) {
	if err := s.gate.Enter("pinecone"); err != nil {
		return nil, err
	}
	defer s.gate.Exit()
	q, qvec, err := vector.PrepareQuery(ctx, s.emb, s.dims, q)
	if err != nil {
		return nil, err
	}
	if q.K > MaxK {
		return nil, fmt.Errorf("%w: K is %d; Pinecone returns at most %d matches per query", vector.ErrInvalidQuery, q.K, MaxK)
	}
	expr, ok, err := translate(q.Filter)
	if err != nil {
		return nil, fmt.Errorf("pinecone: %w", err)
	}
	if !ok {
		return nil, nil
	}
	// Pinecone returns metadata and values with at most MaxKWithMetadata
	// matches; a larger K asks for ids and scores, then fetches the rest.
	include := q.K <= MaxKWithMetadata
	req := &pinecone.QueryByVectorValuesRequest{Vector: qvec, TopK: uint32(q.K), IncludeValues: include && q.WithVectors, IncludeMetadata: include}
	if expr != nil {
		if req.MetadataFilter, err = structpb.NewStruct(expr); err != nil {
			return nil, fmt.Errorf("pinecone: encode filter: %w", err)
		}
	}
	res, err := s.idx.QueryByVectorValues(ctx, req)
	if err != nil {
		return nil, fmt.Errorf("pinecone: query: %w", err)
	}
	var kept []*pinecone.ScoredVector
	for _, m := range res.Matches {
		if m != nil && m.Vector != nil && (q.MinScore == 0 || m.Score >= q.MinScore) {
			kept = append(kept, m)
		}
	}
	if !include {
		if kept, err = s.fetch(ctx, kept); err != nil {
			return nil, err
		}
	}
	out := make([]vector.Match, 0, len(kept))
	for _, m := range kept {
		d, err := s.document(m.Vector)
		if err != nil {
			return nil, err
		}
		if !q.WithVectors {
			d.Vector = nil // a fetch returns values whether asked or not
		}
		out = append(out, vector.Match{Document: d, Score: m.Score})
	}
	return out, nil
}

// fetch fills in the metadata and values of matches by id, in batches. A
// record deleted since the query is left out.
func (s *Store) fetch(ctx context.Context, ms []*pinecone.ScoredVector) ([]*pinecone.ScoredVector, error) {
	records := make(map[string]*pinecone.Vector, len(ms))
	for start := 0; start < len(ms); start += fetchBatch {
		part := ms[start:min(start+fetchBatch, len(ms))]
		ids := make([]string, len(part))
		for i, m := range part {
			ids[i] = m.Vector.Id
		}
		res, err := s.idx.FetchVectors(ctx, ids)
		if err != nil {
			return nil, fmt.Errorf("pinecone: fetch %d matches: %w", len(ids), err)
		}
		for id, v := range res.Vectors {
			records[id] = v
		}
	}
	out := ms[:0]
	for _, m := range ms {
		if v := records[m.Vector.Id]; v != nil {
			out = append(out, &pinecone.ScoredVector{Vector: v, Score: m.Score})
		}
	}
	return out, nil
}

// document converts a returned record back, taking the text out of the
// metadata.
func (s *Store) document(v *pinecone.Vector) (vector.Document, error) {
	d := vector.Document{ID: v.Id}
	if v.Values != nil {
		d.Vector = *v.Values
	}
	if v.Metadata == nil {
		return d, nil
	}
	fields := v.Metadata.AsMap()
	if text, ok := fields[s.textKey].(string); ok {
		d.Text = text
	}
	delete(fields, s.textKey)
	meta, err := vector.NormalizeMetadata(fields)
	if err != nil {
		return d, fmt.Errorf("pinecone: record %q: metadata: %w", v.Id, err)
	}
	d.Metadata = meta
	return d, nil
}
