package chroma

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	chroma "github.com/amikos-tech/chroma-go/pkg/api/v2"
	"github.com/amikos-tech/chroma-go/pkg/embeddings"

	"github.com/loomwork/loom/model"
	"github.com/loomwork/loom/vector"
)

const (
	// DefaultCollection is the collection a [Config] with no Collection
	// uses.
	DefaultCollection = "loom"
	// DefaultBatchSize is the most records or ids per request when
	// [Config.BatchSize] is zero.
	DefaultBatchSize = 100
	// DefaultMaxBatchSize is the max_batch_size a default Chroma server
	// reports; the store caps its batches there when the server reports
	// no limit.
	DefaultMaxBatchSize = 5461
)

// ErrConfig marks a [Config] that cannot open a store, or a collection
// that does not fit it; the message says which.
var ErrConfig = errors.New("chroma: invalid config")

// Config says which collection a [Store] uses and how.
type Config struct {
	// Client is the Chroma client, as from chroma.NewHTTPClient, with its
	// tenant and database chosen. The caller keeps and closes it.
	Client chroma.Client
	// Collection is the collection's name. Empty means
	// [DefaultCollection].
	Collection string
	// Dimensions is the length of every vector. Zero takes the
	// Embedder's; negative is an error.
	Dimensions int
	// Embedder embeds documents and queries given as text. Nil: every
	// document and query must carry a vector.
	Embedder model.Embedder
	// BatchSize is the most records or ids one request carries (upsert,
	// delete, and the read of stored metadata before an upsert on a
	// server without schemas): zero means [DefaultBatchSize]; negative is
	// an error. [Open] reads the server's max_batch_size from its
	// pre-flight checks and caps BatchSize there (5,461 on a default
	// server), without error, so a large BatchSize means "as large as the
	// server takes". When the limit is not known (the pre-flight checks
	// fail or lack it, or Client is not chroma-go's HTTP client, the one
	// that can send them) the cap is [DefaultMaxBatchSize].
	// [Store.BatchSize] returns the result.
	BatchSize int
}

// Store is a [vector.Store] on a Chroma collection. It is safe for
// concurrent use.
type Store struct {
	client chroma.Client
	name   string
	col    chroma.Collection
	dims   int
	emb    model.Embedder
	batch  int

	gate vector.Gate // calls in flight; closed by Close
}

var _ vector.Store = (*Store)(nil)

// Open gets or creates the collection with cosine distance, checks an
// existing one's space and dimension, and reads the server's
// max_batch_size (see [Config.BatchSize]).
func Open(ctx context.Context, cfg Config) (*Store, error) {
	if cfg.Client == nil {
		return nil, fmt.Errorf("%w: Client is nil; create one with chroma.NewHTTPClient", ErrConfig)
	}
	dims, err := vector.ConfigDimensions(cfg.Dimensions, cfg.Embedder, ErrConfig)
	if err != nil {
		return nil, err
	}
	if cfg.BatchSize < 0 {
		return nil, fmt.Errorf("%w: BatchSize is %d; use 0 for %d, or a positive count", ErrConfig, cfg.BatchSize, DefaultBatchSize)
	}
	if cfg.Collection == "" {
		cfg.Collection = DefaultCollection
	}
	col, err := cfg.Client.GetOrCreateCollection(ctx, cfg.Collection,
		chroma.WithHNSWSpaceCreate(embeddings.COSINE),
		chroma.WithEmbeddingFunctionCreate(embedFunc{cfg.Embedder}),
		chroma.WithDisableEFConfigStorage())
	if err != nil {
		return nil, fmt.Errorf("chroma: get or create collection %q: %w", cfg.Collection, err)
	}
	if space := distanceSpace(col); space != string(embeddings.COSINE) {
		return nil, fmt.Errorf("%w: collection %q uses %s distance; the store needs cosine: use another Collection", ErrConfig, cfg.Collection, space)
	}
	if d := col.Dimension(); d != 0 && d != dims {
		return nil, &vector.DimensionError{Want: d, Got: dims, What: fmt.Sprintf("the config opening collection %q", cfg.Collection)}
	}
	batch := effectiveBatch(cfg.BatchSize, serverBatchSize(ctx, cfg.Client))
	return &Store{client: cfg.Client, name: cfg.Collection, col: col, dims: dims, emb: cfg.Embedder, batch: batch}, nil
}

// distanceSpace returns a collection's distance: its hnsw:space metadata,
// else the space of its HNSW or SPANN configuration, else Chroma's default,
// l2.
func distanceSpace(col chroma.Collection) string {
	if md := col.Metadata(); md != nil {
		if space, ok := md.GetString(chroma.HNSWSpace); ok {
			return space
		}
	}
	if cfg := col.Configuration(); cfg != nil {
		for _, index := range []string{"hnsw", "spann"} {
			raw, _ := cfg.GetRaw(index)
			if m, ok := raw.(map[string]any); ok {
				if space, ok := m["space"].(string); ok {
					return space
				}
			}
		}
	}
	return string(embeddings.L2)
}

// Dimensions returns the length of every stored vector.
func (s *Store) Dimensions() int { return s.dims }

// Close marks the store closed; later calls fail with [vector.ErrClosed].
// The client stays open.
func (s *Store) Close() error {
	s.gate.Close()
	return nil
}

// Upsert writes docs in requests of [Store.BatchSize] records, replacing
// records with the same ids, metadata included.
func (s *Store) Upsert(ctx context.Context, docs ...vector.Document) error {
	if err := s.gate.Enter("chroma"); err != nil {
		return err
	}
	defer s.gate.Exit()
	docs, err := vector.PrepareDocuments(ctx, s.emb, s.dims, docs)
	if err != nil || len(docs) == 0 {
		return err
	}
	known, err := s.collectionKeys(ctx)
	if err != nil {
		return err
	}
	for start := 0; start < len(docs); start += s.batch {
		part := docs[start:min(start+s.batch, len(docs))]
		if err := s.upsert(ctx, part, known); err != nil {
			return fmt.Errorf("chroma: upsert %d records (%d of %d already written): %w", len(part), start, len(docs), err)
		}
	}
	return nil
}

// collectionKeys returns every metadata key of the collection, read from
// the schema the server reports with the collection (a server with
// schemas adds each key there when a record first carries it), or nil
// when the server reports no schema.
func (s *Store) collectionKeys(ctx context.Context) (map[string]bool, error) {
	col, err := s.client.GetCollection(ctx, s.name, chroma.WithEmbeddingFunctionGet(embedFunc{s.emb}))
	if err != nil {
		return nil, fmt.Errorf("chroma: read collection %q: %w", s.name, err)
	}
	schema := col.Schema()
	if schema == nil {
		return nil, nil
	}
	known := map[string]bool{}
	for _, k := range schema.Keys() {
		if !strings.HasPrefix(k, "#") { // "#document", "#embedding": the server's own
			known[k] = true
		}
	}
	return known, nil
}

// upsert writes one batch. Chroma merges metadata on upsert, so the keys
// a document lacks are sent as null, which Chroma deletes: every key of
// the collection when known (nil: the server reports no schema), else the
// keys each stored record has, read first.
func (s *Store) upsert(ctx context.Context, docs []vector.Document, known map[string]bool) error {
	ids := make([]chroma.DocumentID, len(docs))
	for i, d := range docs {
		ids[i] = chroma.DocumentID(d.ID)
	}
	stale := map[string][]string{}
	if known != nil {
		all := slices.Sorted(maps.Keys(known))
		for _, d := range docs {
			stale[d.ID] = all
		}
	} else {
		old, err := s.col.Get(ctx, chroma.WithIDs(ids...), chroma.WithInclude(chroma.IncludeMetadatas))
		if err != nil {
			return fmt.Errorf("read the stored metadata: %w", err)
		}
		metas := old.GetMetadatas()
		for i, id := range old.GetIDs() {
			if i < len(metas) && metas[i] != nil {
				stale[string(id)] = keys(metas[i])
			}
		}
	}
	texts := make([]string, len(docs))
	vecs := make([]embeddings.Embedding, len(docs))
	mds := make([]chroma.DocumentMetadata, len(docs))
	for i, d := range docs {
		texts[i] = d.Text
		vecs[i] = embeddings.NewEmbeddingFromFloat32(d.Vector)
		mds[i] = metadata(d.Metadata, stale[d.ID])
	}
	return s.col.Upsert(ctx, chroma.WithIDs(ids...), chroma.WithTexts(texts...), chroma.WithEmbeddings(vecs...), chroma.WithMetadatas(mds...))
}

// keys lists the keys of stored metadata.
func keys(md chroma.DocumentMetadata) []string {
	impl, ok := md.(*chroma.DocumentMetadataImpl)
	if !ok {
		return nil
	}
	return impl.Keys()
}

// metadata converts normalised metadata, removing the stale keys it lacks.
// It returns nil when there is nothing to send.
func metadata(md map[string]any, stale []string) chroma.DocumentMetadata {
	var attrs []*chroma.MetaAttribute
	for k, v := range md {
		switch x := v.(type) {
		case string:
			attrs = append(attrs, chroma.NewStringAttribute(k, x))
		case bool:
			attrs = append(attrs, chroma.NewBoolAttribute(k, x))
		case float64:
			attrs = append(attrs, chroma.NewFloatAttribute(k, x))
		case []string:
			attrs = append(attrs, chroma.NewStringArrayAttribute(k, x))
		}
	}
	for _, k := range stale {
		if _, ok := md[k]; !ok {
			attrs = append(attrs, chroma.RemoveAttribute(k))
		}
	}
	if len(attrs) == 0 {
		return nil
	}
	return chroma.NewDocumentMetadata(attrs...)
}

// Delete removes the records with these ids, [Store.BatchSize] per
// request; unknown ids are ignored. A failure in a later request leaves
// the earlier ones deleted.
func (s *Store) Delete(ctx context.Context, ids ...string) error {
	if err := s.gate.Enter("chroma"); err != nil {
		return err
	}
	defer s.gate.Exit()
	if len(ids) == 0 {
		return nil
	}
	docIDs := make([]chroma.DocumentID, len(ids))
	for i, id := range ids {
		docIDs[i] = chroma.DocumentID(id)
	}
	for start := 0; start < len(docIDs); start += s.batch {
		part := docIDs[start:min(start+s.batch, len(docIDs))]
		if err := s.col.Delete(ctx, chroma.WithIDs(part...)); err != nil {
			return fmt.Errorf("chroma: delete %d ids (%d of %d already deleted): %w", len(part), start, len(ids), err)
		}
	}
	return nil
}

// Search sends one query with the where clause and n_results = K, and
// returns the matches scoring at least q.MinScore, best first.
func (s *Store) Search(ctx context.Context, q vector.Query) ([]vector.Match, error) {
	if err := s.gate.Enter("chroma"); err != nil {
		return nil, err
	}
	defer s.gate.Exit()
	q, qvec, err := vector.PrepareQuery(ctx, s.emb, s.dims, q)
	if err != nil {
		return nil, err
	}
	w, ok, err := translate(q.Filter)
	if err != nil {
		return nil, fmt.Errorf("chroma: %w", err)
	}
	if !ok {
		return nil, nil
	}
	include := []chroma.Include{chroma.IncludeDocuments, chroma.IncludeMetadatas, chroma.IncludeDistances}
	if q.WithVectors {
		include = append(include, chroma.IncludeEmbeddings)
	}
	opts := []chroma.CollectionQueryOption{
		chroma.WithQueryEmbeddings(embeddings.NewEmbeddingFromFloat32(qvec)),
		chroma.WithNResults(q.K),
		chroma.WithInclude(include...),
	}
	if w != nil {
		opts = append(opts, chroma.WithWhere(&w))
	}
	res, err := s.query(ctx, opts)
	if err != nil {
		return nil, fmt.Errorf("chroma: query: %w", err)
	}
	return matches(res, q.MinScore)
}

// indexRetries is how many times a query is sent again when it meets a
// collection whose vector index has not reached disk yet; the waits
// double from indexRetryWait, about 1.3 s in all.
const (
	indexRetries   = 7
	indexRetryWait = 10 * time.Millisecond
)

// query sends a query, and sends it again while the server answers that
// the collection's vector index is not ready: a query racing writes to a
// collection can meet the HNSW segment before the server has written it
// ("Nothing found on disk", chroma-core/chroma#4212), or an id the index
// lists before its record is readable ("Error finding id"), states the
// server leaves on its own within moments. A query changes nothing, so
// sending it again is safe.
func (s *Store) query(ctx context.Context, opts []chroma.CollectionQueryOption) (chroma.QueryResult, error) {
	wait := indexRetryWait
	for attempt := 0; ; attempt++ {
		res, err := s.col.Query(ctx, opts...)
		if err == nil || attempt == indexRetries || !indexNotReady(err) {
			return res, err
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return nil, fmt.Errorf("%w (waiting for the collection's index after: %v)", ctx.Err(), err)
		case <-t.C:
		}
		wait *= 2
	}
}

// indexNotReady reports whether err is the server's answer to a query
// that reached a vector index before it was written, or before a record
// it lists could be read.
func indexNotReady(err error) bool {
	msg := err.Error()
	return strings.Contains(msg, "Nothing found on disk") || strings.Contains(msg, "Error finding id")
}

// matches reads the first result group of a query.
func matches(res chroma.QueryResult, minScore float32) ([]vector.Match, error) {
	idGroups := res.GetIDGroups()
	if len(idGroups) == 0 {
		return nil, nil
	}
	ids := idGroups[0]
	texts := first(res.GetDocumentsGroups())
	metas := first(res.GetMetadatasGroups())
	vecs := first(res.GetEmbeddingsGroups())
	dists := first(res.GetDistancesGroups())
	if len(dists) != len(ids) {
		return nil, fmt.Errorf("chroma: the reply has %d distances for %d ids", len(dists), len(ids))
	}
	out := make([]vector.Match, 0, len(ids))
	for i, id := range ids {
		score := 1 - float32(dists[i])
		if minScore != 0 && score < minScore {
			continue
		}
		m := vector.Match{Document: vector.Document{ID: string(id)}, Score: score}
		if i < len(texts) && texts[i] != nil {
			m.Text = texts[i].ContentString()
		}
		if i < len(vecs) && vecs[i] != nil {
			m.Vector = vecs[i].ContentAsFloat32()
		}
		if i < len(metas) && metas[i] != nil {
			md, err := fromChroma(metas[i])
			if err != nil {
				return nil, fmt.Errorf("chroma: record %q: %w", id, err)
			}
			m.Metadata = md
		}
		out = append(out, m)
	}
	return out, nil
}

// fromChroma converts stored metadata to the contract's types: every
// number as float64, lists as []string.
func fromChroma(md chroma.DocumentMetadata) (map[string]any, error) {
	out := map[string]any{}
	for _, k := range keys(md) {
		if v, ok := md.GetStringArray(k); ok {
			out[k] = v
		} else if v, ok := md.GetBool(k); ok {
			out[k] = v
		} else if v, ok := md.GetString(k); ok {
			out[k] = v
		} else if v, ok := md.GetFloat(k); ok {
			out[k] = v
		} else if v, ok := md.GetInt(k); ok {
			out[k] = float64(v)
		} else {
			return nil, fmt.Errorf("metadata %q holds a type the store does not read (strings, bools, numbers and lists of strings)", k)
		}
	}
	if len(out) == 0 {
		return nil, nil
	}
	return out, nil
}

func first[T any](groups []T) T {
	var zero T
	if len(groups) == 0 {
		return zero
	}
	return groups[0]
}
