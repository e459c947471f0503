package pinecone_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/loomwork/loom/vector"
	"github.com/loomwork/loom/vector/pinecone"
)

func vec(i int) []float32 {
	v := make([]float32, 4)
	v[i%4] = 1
	v[(i+1)%4] = float32(i%7) / 10
	return v
}

// TestFilterRequests asserts the filter each contract filter becomes on
// the wire.
func TestFilterRequests(t *testing.T) {
	ctx := context.Background()
	f, host := startFake(t, 4)
	s, err := pinecone.New(pinecone.Config{Index: connect(t, host, "filters"), Dimensions: 4})
	require.NoError(t, err)
	require.NoError(t, s.Upsert(ctx, vector.Document{ID: "a", Text: "alpha", Vector: vec(1), Metadata: map[string]any{"lang": "go"}}))

	for _, tc := range []struct {
		name   string
		filter *vector.Filter
		want   map[string]any // nil: no filter sent
	}{
		{"eq", vector.Eq("lang", "go"), map[string]any{"lang": map[string]any{"$eq": "go"}}},
		{"eq int becomes float", vector.Eq("n", 3), map[string]any{"n": map[string]any{"$eq": 3.0}}},
		{"in strings", vector.In("lang", "go", "js"), map[string]any{"lang": map[string]any{"$in": []any{"go", "js"}}}},
		{"in mixed", vector.In("code", "5", 5), map[string]any{"$or": []any{
			map[string]any{"code": map[string]any{"$eq": "5"}},
			map[string]any{"code": map[string]any{"$eq": 5.0}},
		}}},
		{"in bools", vector.In("ok", true), map[string]any{"ok": map[string]any{"$eq": true}}},
		{"range", vector.And(vector.Gte("n", 1), vector.Lt("n", 2)), map[string]any{"$and": []any{
			map[string]any{"n": map[string]any{"$gte": 1.0}},
			map[string]any{"n": map[string]any{"$lt": 2.0}},
		}}},
		{"or with a never operand", vector.Or(vector.In("x"), vector.Gt("n", 0)), map[string]any{"n": map[string]any{"$gt": 0.0}}},
		{"and empty", vector.And(), nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := len(f.calls("Query"))
			_, err := s.Search(ctx, vector.Query{Vector: vec(1), K: 2, Filter: tc.filter})
			require.NoError(t, err)
			qs := f.calls("Query")
			require.Len(t, qs, before+1)
			body := qs[len(qs)-1].Body
			if tc.want == nil {
				require.NotContains(t, body, "filter")
			} else {
				require.Equal(t, tc.want, body["filter"])
			}
			require.Equal(t, "filters", body["namespace"])
			require.EqualValues(t, 2, body["topK"])
		})
	}

	before := len(f.calls("Query"))
	ms, err := s.Search(ctx, vector.Query{Vector: vec(1), Filter: vector.And(vector.Eq("lang", "go"), vector.Or())})
	require.NoError(t, err)
	require.Empty(t, ms)
	require.Len(t, f.calls("Query"), before, "a filter that matches nothing sends no query")
}

func TestUpsertRequests(t *testing.T) {
	ctx := context.Background()
	f, host := startFake(t, 4)
	s, err := pinecone.New(pinecone.Config{Index: connect(t, host, "up"), Dimensions: 4, BatchSize: 100})
	require.NoError(t, err)
	docs := make([]vector.Document, 250)
	for i := range docs {
		docs[i] = vector.Document{ID: fmt.Sprint(i), Text: fmt.Sprintf("text %d", i), Vector: vec(i), Metadata: map[string]any{"tags": []string{"x"}}}
	}
	require.NoError(t, s.Upsert(ctx, docs...))
	ups := f.calls("Upsert")
	require.Len(t, ups, 3, "250 vectors in batches of 100")
	first := ups[0].Body["vectors"].([]any)[0].(map[string]any)
	require.Equal(t, "0", first["id"])
	require.Equal(t, map[string]any{"loom_text": "text 0", "tags": []any{"x"}}, first["metadata"], "the text travels in the metadata")

	require.NoError(t, s.Delete(ctx, "0", "1"))
	dels := f.calls("Delete")
	require.Len(t, dels, 1)
	require.Equal(t, []any{"0", "1"}, dels[0].Body["ids"])

	err = s.Upsert(ctx, vector.Document{ID: "x", Text: "t", Vector: vec(1), Metadata: map[string]any{"loom_text": "clash"}})
	require.ErrorIs(t, err, vector.ErrInvalidDocument)
	require.ErrorContains(t, err, "TextKey")

	_, err = s.Search(ctx, vector.Query{Vector: vec(1), K: pinecone.MaxK + 1})
	require.ErrorIs(t, err, vector.ErrInvalidQuery)
	require.ErrorContains(t, err, "10000")
}

func TestServerErrorsAreWrapped(t *testing.T) {
	ctx := context.Background()
	_, host := startFake(t, 4)
	// The fake's index has 4 dimensions; a store told 3 sends vectors the
	// server rejects, and the server's message comes back.
	s, err := pinecone.New(pinecone.Config{Index: connect(t, host, "e"), Dimensions: 3})
	require.NoError(t, err)
	err = s.Upsert(ctx, vector.Document{ID: "a", Vector: []float32{1, 0, 0}})
	require.ErrorContains(t, err, "does not match the dimension of the index 4")
	_, err = s.Search(ctx, vector.Query{Vector: []float32{1, 0, 0}})
	require.ErrorContains(t, err, "pinecone: query")
}

func TestNewRejectsBadConfig(t *testing.T) {
	_, host := startFake(t, 4)
	idx := connect(t, host, "c")
	for _, tc := range []struct {
		name string
		cfg  pinecone.Config
		want string
	}{
		{"no index", pinecone.Config{Dimensions: 4}, "Index is nil"},
		{"negative dimensions", pinecone.Config{Index: idx, Dimensions: -4}, "Dimensions is -4"},
		{"no dimensions", pinecone.Config{Index: idx}, "no Embedder"},
		{"batch", pinecone.Config{Index: idx, Dimensions: 4, BatchSize: 1001}, "BatchSize is 1001"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := pinecone.New(tc.cfg)
			require.ErrorIs(t, err, pinecone.ErrConfig)
			require.ErrorContains(t, err, tc.want)
		})
	}
}

func TestTextNeedsAnEmbedder(t *testing.T) {
	ctx := context.Background()
	f, host := startFake(t, 4)
	s, err := pinecone.New(pinecone.Config{Index: connect(t, host, "noemb"), Dimensions: 4})
	require.NoError(t, err)
	require.ErrorIs(t, s.Upsert(ctx, vector.Document{ID: "a", Text: "words"}), vector.ErrNoEmbedder)
	_, err = s.Search(ctx, vector.Query{Text: "words"})
	require.ErrorIs(t, err, vector.ErrNoEmbedder)
	require.Empty(t, f.calls(""), "nothing is sent")
}

// TestLargeKFetchesRecords checks that a K above Pinecone's limit for
// queries with metadata asks for ids and scores, then fetches the records.
func TestLargeKFetchesRecords(t *testing.T) {
	ctx := context.Background()
	f, host := startFake(t, 4)
	s, err := pinecone.New(pinecone.Config{Index: connect(t, host, "big"), Dimensions: 4, BatchSize: 1000})
	require.NoError(t, err)
	docs := make([]vector.Document, 1500)
	for i := range docs {
		docs[i] = vector.Document{ID: fmt.Sprint(i), Text: fmt.Sprint("text ", i), Vector: vec(i), Metadata: map[string]any{"i": i}}
	}
	require.NoError(t, s.Upsert(ctx, docs...))
	ms, err := s.Search(ctx, vector.Query{Vector: vec(3), K: 1200, WithVectors: true})
	require.NoError(t, err)
	require.Len(t, ms, 1200)
	for i, m := range ms {
		require.Equal(t, fmt.Sprint("text ", m.ID), m.Text)
		require.Len(t, m.Vector, 4)
		require.Contains(t, m.Metadata, "i")
		if i > 0 {
			require.LessOrEqual(t, m.Score, ms[i-1].Score)
		}
	}
	q := f.calls("Query")
	require.Equal(t, nil, q[len(q)-1].Body["includeMetadata"], "no metadata asked for with top_k above 1000")
	fetches := f.calls("Fetch")
	require.Len(t, fetches, 2, "1200 records fetched in batches of 1000")
	require.Len(t, fetches[0].Body["ids"], 1000)

	ms, err = s.Search(ctx, vector.Query{Vector: vec(3), K: 1000})
	require.NoError(t, err)
	require.Len(t, ms, 1000)
	require.Len(t, f.calls("Fetch"), 2, "K up to 1000 needs no fetch")
	q = f.calls("Query")
	require.Equal(t, nil, q[len(q)-1].Body["includeValues"], "no values asked for without WithVectors")
	require.Equal(t, true, q[len(q)-1].Body["includeMetadata"])
	require.Nil(t, ms[0].Vector)
	ms, err = s.Search(ctx, vector.Query{Vector: vec(3), K: 10, WithVectors: true})
	require.NoError(t, err)
	require.Len(t, ms[0].Vector, 4)
	q = f.calls("Query")
	require.Equal(t, true, q[len(q)-1].Body["includeValues"], "values asked for WithVectors")
}
