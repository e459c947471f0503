package weaviate

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sync"

	"github.com/go-openapi/strfmt"
	"github.com/google/uuid"
	"github.com/weaviate/weaviate-go-client/v5/weaviate"
	"github.com/weaviate/weaviate-go-client/v5/weaviate/filters"
	"github.com/weaviate/weaviate-go-client/v5/weaviate/graphql"
	"github.com/weaviate/weaviate/entities/models"

	"github.com/loomwork/loom/model"
	"github.com/loomwork/loom/vector"
)

const (
	// DefaultClass is the class a [Config] with no Class uses.
	DefaultClass = "LoomDocument"
	// DefaultBatchSize is the number of objects per batch request when
	// [Config.BatchSize] is zero.
	DefaultBatchSize = 100
)

// ErrConfig marks a [Config] that cannot open a store, or a class that
// does not fit it; the message says which.
var ErrConfig = errors.New("weaviate: invalid config")

// MaxK is the largest K a search takes: Weaviate's default
// QUERY_MAXIMUM_RESULTS, above which the server refuses a query.
const MaxK = 10000

// idSpace is the namespace of the name-based UUIDs of document ids.
var idSpace = uuid.MustParse("6ba7b811-9dad-11d1-80b4-00c04fd430c8") // RFC 4122's URL namespace

// ObjectID returns the Weaviate object UUID of a document id: the SHA-1
// name-based UUID of the id in RFC 4122's URL namespace.
func ObjectID(id string) string { return uuid.NewSHA1(idSpace, []byte(id)).String() }

// Config says which class a [Store] uses and how.
type Config struct {
	// Client is the Weaviate client, as from weaviate.NewClient. The
	// caller keeps it.
	Client *weaviate.Client
	// Class is the class's name: an upper-case letter, then letters,
	// digits and underscores. Empty means [DefaultClass].
	Class string
	// Dimensions is the length of every vector. Zero takes the
	// Embedder's; negative is an error.
	Dimensions int
	// Embedder embeds documents and queries given as text. Nil: every
	// document and query must carry a vector.
	Embedder model.Embedder
	// BatchSize is the number of objects per batch request: zero means
	// [DefaultBatchSize]; negative is an error.
	BatchSize int
}

// Store is a [vector.Store] on a Weaviate class. It is safe for concurrent
// use.
type Store struct {
	client *weaviate.Client
	class  string
	dims   int
	emb    model.Embedder
	batch  int

	schemaMu sync.Mutex        // guards props
	props    map[string]string // metadata property → data type

	gate vector.Gate // calls in flight; closed by Close
}

var _ vector.Store = (*Store)(nil)

// Open reads the class, creating it when missing.
func Open(ctx context.Context, cfg Config) (*Store, error) {
	if cfg.Client == nil {
		return nil, fmt.Errorf("%w: Client is nil; create one with weaviate.NewClient", ErrConfig)
	}
	dims, err := vector.ConfigDimensions(cfg.Dimensions, cfg.Embedder, ErrConfig)
	if err != nil {
		return nil, err
	}
	switch {
	case cfg.BatchSize < 0:
		return nil, fmt.Errorf("%w: BatchSize is %d; use 0 for %d, or a positive count", ErrConfig, cfg.BatchSize, DefaultBatchSize)
	case cfg.BatchSize == 0:
		cfg.BatchSize = DefaultBatchSize
	}
	if cfg.Class == "" {
		cfg.Class = DefaultClass
	}
	if !className.MatchString(cfg.Class) {
		return nil, fmt.Errorf("%w: Class %q: use an upper-case letter, then letters, digits and underscores", ErrConfig, cfg.Class)
	}
	s := &Store{client: cfg.Client, class: cfg.Class, dims: dims, emb: cfg.Embedder, batch: cfg.BatchSize}
	props, err := s.loadSchema(ctx, true)
	if err != nil {
		return nil, err
	}
	s.props = props
	return s, nil
}

// Dimensions returns the length of every stored vector.
func (s *Store) Dimensions() int { return s.dims }

// Close marks the store closed; later calls fail with [vector.ErrClosed].
func (s *Store) Close() error {
	s.gate.Close()
	return nil
}

// Upsert writes docs in batches, replacing objects with the same ids.
func (s *Store) Upsert(ctx context.Context, docs ...vector.Document) error {
	if err := s.gate.Enter("weaviate"); err != nil {
		return err
	}
	defer s.gate.Exit()
	docs, err := vector.PrepareDocuments(ctx, s.emb, s.dims, docs)
	if err != nil {
		return err
	}
	if err := s.ensureProperties(ctx, docs); err != nil {
		return err
	}
	for start := 0; start < len(docs); start += s.batch {
		part := docs[start:min(start+s.batch, len(docs))]
		objs := make([]*models.Object, len(part))
		for i, d := range part {
			props := map[string]any{idProperty: d.ID, textProperty: d.Text}
			for k, v := range d.Metadata {
				props[k] = v
			}
			objs[i] = &models.Object{Class: s.class, ID: strfmt.UUID(ObjectID(d.ID)), Properties: props, Vector: d.Vector}
		}
		res, err := s.client.Batch().ObjectsBatcher().WithObjects(objs...).Do(ctx)
		if err == nil {
			err = batchErrors(res)
		}
		if err != nil {
			return fmt.Errorf("weaviate: upsert %d objects (%d of %d already written): %w", len(part), start, len(docs), err)
		}
	}
	return nil
}

// batchErrors collects the per-object errors of a batch reply.
func batchErrors(res []models.ObjectsGetResponse) error {
	var errs []error
	for _, r := range res {
		if r.Result == nil || r.Result.Errors == nil {
			continue
		}
		for _, e := range r.Result.Errors.Error {
			if e != nil {
				errs = append(errs, fmt.Errorf("object %s: %s", r.ID, e.Message))
			}
		}
	}
	return errors.Join(errs...)
}

// Delete removes the objects with these ids; unknown ids are ignored.
func (s *Store) Delete(ctx context.Context, ids ...string) error {
	if err := s.gate.Enter("weaviate"); err != nil {
		return err
	}
	defer s.gate.Exit()
	for start := 0; start < len(ids); start += s.batch {
		part := ids[start:min(start+s.batch, len(ids))]
		// By object UUID, which is exact: the id property is tokenized as
		// a field, which trims white space, so a filter on it would also
		// delete " a" with "a".
		uuids := make([]string, len(part))
		for i, id := range part {
			uuids[i] = ObjectID(id)
		}
		where := filters.Where().WithPath([]string{"id"}).WithOperator(filters.ContainsAny).WithValueText(uuids...)
		res, err := s.client.Batch().ObjectsBatchDeleter().WithClassName(s.class).WithWhere(where).Do(ctx)
		if err == nil && res != nil && res.Results != nil && res.Results.Failed > 0 {
			err = fmt.Errorf("%d objects failed to delete", res.Results.Failed)
		}
		if err != nil {
			return fmt.Errorf("weaviate: delete %d ids: %w", len(part), err)
		}
	}
	return nil
}

// Search sends one GraphQL Get with nearVector, the where filter and
// limit K, and returns the matches scoring at least q.MinScore, best
// first.
func (s *Store) Search(ctx context.Context, q vector.Query) ([]vector.Match, error) {
	if err := s.gate.Enter("weaviate"); err != nil {
		return nil, err
	}
	defer s.gate.Exit()
	q, qvec, err := vector.PrepareQuery(ctx, s.emb, s.dims, q)
	if err != nil {
		return nil, err
	}
	if q.K > MaxK {
		return nil, fmt.Errorf("%w: K is %d; Weaviate returns at most %d results per query (its QUERY_MAXIMUM_RESULTS default)", vector.ErrInvalidQuery, q.K, MaxK)
	}
	props, err := s.properties(ctx, fields(q.Filter))
	if err != nil {
		return nil, err
	}
	s.schemaMu.Lock()
	props = maps.Clone(props)
	s.schemaMu.Unlock()
	where, ok, err := translate(q.Filter, props)
	if err != nil {
		return nil, fmt.Errorf("weaviate: %w", err)
	}
	if !ok {
		return nil, nil
	}
	names := []graphql.Field{{Name: idProperty}, {Name: textProperty}}
	for _, p := range slices.Sorted(maps.Keys(props)) {
		names = append(names, graphql.Field{Name: p})
	}
	additional := []graphql.Field{{Name: "distance"}}
	if q.WithVectors {
		additional = append(additional, graphql.Field{Name: "vector"})
	}
	names = append(names, graphql.Field{Name: "_additional", Fields: additional})
	// Weaviate's field tokenization trims white space, so its where
	// filter can match "go " for "go": the matches are checked again
	// exactly, and when that drops some, the query is sent again with a
	// larger limit until K remain or the server has no more.
	limit := q.K
	for {
		get := s.client.GraphQL().Get().WithClassName(s.class).WithFields(names...).
			WithNearVector(s.client.GraphQL().NearVectorArgBuilder().WithVector(qvec)).WithLimit(limit)
		if where != nil {
			get = get.WithWhere(where)
		}
		res, err := get.Do(ctx)
		if err != nil {
			return nil, fmt.Errorf("weaviate: search: %w", err)
		}
		if len(res.Errors) > 0 {
			msgs := make([]error, len(res.Errors))
			for i, e := range res.Errors {
				msgs[i] = errors.New(e.Message)
			}
			return nil, fmt.Errorf("weaviate: search: %w", errors.Join(msgs...))
		}
		all, err := s.matches(res.Data, props, 0)
		if err != nil {
			return nil, err
		}
		if q.Filter == nil {
			return cut(all, q.K, q.MinScore), nil
		}
		exact := slices.DeleteFunc(slices.Clone(all), func(m vector.Match) bool { return !q.Filter.Match(m.Metadata) })
		if len(exact) >= q.K || len(all) < limit || limit >= MaxK {
			return cut(exact, q.K, q.MinScore), nil
		}
		limit = min(MaxK, limit+2*(limit-len(exact)))
	}
}

// cut returns the first k matches scoring at least minScore (when not 0).
func cut(ms []vector.Match, k int, minScore float32) []vector.Match {
	ms = ms[:min(k, len(ms))]
	if minScore != 0 {
		ms = slices.DeleteFunc(ms, func(m vector.Match) bool { return m.Score < minScore })
	}
	return ms
}

// matches reads the objects of a Get reply.
func (s *Store) matches(data map[string]models.JSONObject, props map[string]string, minScore float32) ([]vector.Match, error) {
	get, _ := data["Get"].(map[string]any)
	objs, _ := get[s.class].([]any)
	out := make([]vector.Match, 0, len(objs))
	for _, o := range objs {
		obj, ok := o.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("weaviate: search: an object of the reply is %T", o)
		}
		add, _ := obj["_additional"].(map[string]any)
		dist, ok := add["distance"].(float64)
		if !ok {
			return nil, fmt.Errorf("weaviate: search: an object of the reply has no distance")
		}
		score := float32(1 - dist)
		if minScore != 0 && score < minScore {
			continue
		}
		id, _ := obj[idProperty].(string)
		text, _ := obj[textProperty].(string)
		raw := map[string]any{}
		for p := range props {
			if v, ok := obj[p]; ok && v != nil {
				raw[p] = v
			}
		}
		md, err := vector.NormalizeMetadata(raw)
		if err != nil {
			return nil, fmt.Errorf("weaviate: object %q: %w", id, err)
		}
		var vec []float32
		if vs, ok := add["vector"].([]any); ok {
			vec = make([]float32, len(vs))
			for i, x := range vs {
				f, _ := x.(float64)
				vec[i] = float32(f)
			}
		}
		out = append(out, vector.Match{Document: vector.Document{ID: id, Text: text, Vector: vec, Metadata: md}, Score: score})
	}
	slices.SortStableFunc(out, func(a, b vector.Match) int {
		switch {
		case a.Score > b.Score:
			return -1
		case a.Score < b.Score:
			return 1
		}
		return 0
	})
	return out, nil
}
