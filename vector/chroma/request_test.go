package chroma_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/loomwork/loom/vector"
	"github.com/loomwork/loom/vector/chroma"
)

func vec(i int) []float32 {
	v := make([]float32, 4)
	v[i%4] = 1
	v[(i+1)%4] = float32(i%7) / 10
	return v
}

// TestWhereRequests asserts the where clause each contract filter becomes
// on the wire.
func TestWhereRequests(t *testing.T) {
	ctx := context.Background()
	f := startFake(t)
	s, err := chroma.Open(ctx, chroma.Config{Client: client(t, f), Collection: "where", Dimensions: 4})
	require.NoError(t, err)
	require.NoError(t, s.Upsert(ctx, vector.Document{ID: "a", Text: "alpha", Vector: vec(1)}))

	eqString := func(field, v string) map[string]any {
		return map[string]any{"$or": []any{
			map[string]any{field: map[string]any{"$eq": v}},
			map[string]any{field: map[string]any{"$contains": v}},
		}}
	}
	for _, tc := range []struct {
		name   string
		filter *vector.Filter
		want   map[string]any
	}{
		{"eq string matches a field or a list element", vector.Eq("lang", "go"), eqString("lang", "go")},
		{"eq number is a float", vector.Eq("n", 3), map[string]any{"n": map[string]any{"$eq": 3.0}}},
		{"eq bool", vector.Eq("ok", true), map[string]any{"ok": map[string]any{"$eq": true}}},
		{"in", vector.In("n", 1, 2.5), map[string]any{"$or": []any{
			map[string]any{"n": map[string]any{"$eq": 1.0}},
			map[string]any{"n": map[string]any{"$eq": 2.5}},
		}}},
		{"range", vector.And(vector.Gte("n", 1), vector.Lt("n", 2)), map[string]any{"$and": []any{
			map[string]any{"n": map[string]any{"$gte": 1.0}},
			map[string]any{"n": map[string]any{"$lt": 2.0}},
		}}},
		{"one operand stands alone", vector.And(vector.Gt("n", 0), vector.And()), map[string]any{"n": map[string]any{"$gt": 0.0}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := len(f.calls("/query"))
			_, err := s.Search(ctx, vector.Query{Vector: vec(1), K: 2, Filter: tc.filter})
			require.NoError(t, err)
			qs := f.calls("/query")
			require.Len(t, qs, before+1)
			require.Equal(t, tc.want, qs[len(qs)-1].Body["where"])
			require.EqualValues(t, 2, qs[len(qs)-1].Body["n_results"])
		})
	}

	before := len(f.calls("/query"))
	ms, err := s.Search(ctx, vector.Query{Vector: vec(1), Filter: vector.In("lang")})
	require.NoError(t, err)
	require.Empty(t, ms)
	require.Len(t, f.calls("/query"), before, "a filter that matches nothing sends no query")
}

// TestUpsertReplacesMetadata checks that an overwrite sends the keys the
// new document lacks as null, since Chroma merges metadata on upsert: the
// collection's keys from the schema the server reports, one read per
// Upsert and none per batch, or, from a server that reports no schema,
// the stored record's keys read before each batch.
func TestUpsertReplacesMetadata(t *testing.T) {
	for _, tc := range []struct {
		name       string
		schemaless bool
	}{{"schema", false}, {"schemaless", true}} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			f := startFake(t)
			f.schemaless = tc.schemaless
			s, err := chroma.Open(ctx, chroma.Config{Client: client(t, f), Collection: "up", Dimensions: 4, BatchSize: 2})
			require.NoError(t, err)
			require.NoError(t, s.Upsert(ctx, vector.Document{ID: "a", Text: "one", Vector: vec(1), Metadata: map[string]any{"x": "1", "y": 2}}))
			require.NoError(t, s.Upsert(ctx, vector.Document{ID: "a", Text: "two", Vector: vec(1), Metadata: map[string]any{"x": "3"}}))
			ups := f.calls("/upsert")
			require.Len(t, ups, 2)
			require.Equal(t, []any{map[string]any{"x": "3", "y": nil}}, ups[1].Body["metadatas"], "the stale key goes as null")
			require.Equal(t, []any{"two"}, ups[1].Body["documents"])

			ms, err := s.Search(ctx, vector.Query{Vector: vec(1), K: 1})
			require.NoError(t, err)
			require.Equal(t, map[string]any{"x": "3"}, ms[0].Metadata)

			docs := make([]vector.Document, 5)
			for i := range docs {
				docs[i] = vector.Document{ID: fmt.Sprint("b", i), Text: "t", Vector: vec(i)}
			}
			reads, gets := len(f.calls("/collections/up")), len(f.calls("/get"))
			require.NoError(t, s.Upsert(ctx, docs...))
			require.Len(t, f.calls("/upsert"), 5, "five records in batches of two")
			require.Len(t, f.calls("/collections/up"), reads+1, "one read of the collection per Upsert")
			if tc.schemaless {
				require.Len(t, f.calls("/get"), gets+3, "a read of the stored metadata per batch")
			} else {
				require.Len(t, f.calls("/get"), gets, "no read of records")
			}
			ms, err = s.Search(ctx, vector.Query{Vector: vec(4), K: 1})
			require.NoError(t, err)
			require.Equal(t, "b4", ms[0].ID)
			require.Empty(t, ms[0].Metadata)
		})
	}
}

func TestOpenChecksTheCollection(t *testing.T) {
	ctx := context.Background()
	f := startFake(t)
	c := client(t, f)
	_, err := c.CreateCollection(ctx, "l2", chromaL2()...)
	require.NoError(t, err)
	_, err = chroma.Open(ctx, chroma.Config{Client: c, Collection: "l2", Dimensions: 4})
	require.ErrorIs(t, err, chroma.ErrConfig)
	require.ErrorContains(t, err, "cosine")

	// A collection that names no space is Chroma's default, l2.
	f.mu.Lock()
	f.collections["x1"] = &collection{id: "x1", name: "nospace", records: map[string]record{}}
	f.collections["x2"] = &collection{id: "x2", name: "configured", records: map[string]record{},
		configuration: map[string]any{"hnsw": map[string]any{"space": "cosine", "ef_search": 100.0}}}
	f.mu.Unlock()
	_, err = chroma.Open(ctx, chroma.Config{Client: c, Collection: "nospace", Dimensions: 4})
	require.ErrorContains(t, err, "uses l2 distance")
	_, err = chroma.Open(ctx, chroma.Config{Client: c, Collection: "configured", Dimensions: 4})
	require.NoError(t, err, "a space in the configuration counts")

	for _, tc := range []struct {
		name string
		cfg  chroma.Config
		want string
	}{
		{"no client", chroma.Config{Dimensions: 4}, "Client is nil"},
		{"negative dimensions", chroma.Config{Client: c, Dimensions: -1}, "Dimensions is -1"},
		{"no dimensions", chroma.Config{Client: c}, "no Embedder"},
		{"batch", chroma.Config{Client: c, Dimensions: 4, BatchSize: -1}, "BatchSize is -1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := chroma.Open(ctx, tc.cfg)
			require.ErrorIs(t, err, chroma.ErrConfig)
			require.ErrorContains(t, err, tc.want)
		})
	}
}

func TestTextNeedsAnEmbedder(t *testing.T) {
	ctx := context.Background()
	f := startFake(t)
	s, err := chroma.Open(ctx, chroma.Config{Client: client(t, f), Collection: "noemb", Dimensions: 4})
	require.NoError(t, err)
	require.ErrorIs(t, s.Upsert(ctx, vector.Document{ID: "a", Text: "words"}), vector.ErrNoEmbedder)
	_, err = s.Search(ctx, vector.Query{Text: "words"})
	require.ErrorIs(t, err, vector.ErrNoEmbedder)
	require.Empty(t, f.calls("/upsert"))
	require.Empty(t, f.calls("/query"))
}
