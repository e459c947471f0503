package weaviate_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/loomwork/loom/vector"
	"github.com/loomwork/loom/vector/weaviate"
)

// lastWhere returns the where argument of the last GraphQL query.
func lastWhere(t *testing.T, f *fake) any {
	t.Helper()
	qs := f.calls("POST", "/v1/graphql")
	require.NotEmpty(t, qs)
	g, err := parseGet(qs[len(qs)-1].Body.(map[string]any)["query"].(string))
	require.NoError(t, err)
	return g.args["where"]
}

// TestWhereRequests asserts the where clause each contract filter becomes,
// by the type of its property.
func TestWhereRequests(t *testing.T) {
	ctx := context.Background()
	f := startFake(t)
	s, err := weaviate.Open(ctx, weaviate.Config{Client: client(t, f), Class: "W", Dimensions: 2})
	require.NoError(t, err)
	require.NoError(t, s.Upsert(ctx, vector.Document{ID: "a", Text: "alpha", Vector: []float32{1, 0},
		Metadata: map[string]any{"lang": "go", "tags": []string{"x"}, "n": 2, "ok": true}}))

	leaf := func(op, path, key string, v any) map[string]any {
		return map[string]any{"operator": op, "path": []any{path}, key: v}
	}
	for _, tc := range []struct {
		name   string
		filter *vector.Filter
		want   any
	}{
		{"eq on text", vector.Eq("lang", "go"), leaf("Equal", "lang", "valueText", "go")},
		{"eq on text[]", vector.Eq("tags", "x"), leaf("ContainsAny", "tags", "valueText", []any{"x"})},
		{"eq on number", vector.Eq("n", 2), leaf("Equal", "n", "valueNumber", 2.0)},
		{"eq on boolean", vector.Eq("ok", true), leaf("Equal", "ok", "valueBoolean", true)},
		{"range", vector.Lte("n", 2.5), leaf("LessThanEqual", "n", "valueNumber", 2.5)},
		{"in drops the values of another type", vector.In("n", "2", 2), leaf("Equal", "n", "valueNumber", 2.0)},
		{"and", vector.And(vector.Eq("lang", "go"), vector.Gt("n", 1)), map[string]any{"operator": "And", "operands": []any{
			leaf("Equal", "lang", "valueText", "go"), leaf("GreaterThan", "n", "valueNumber", 1.0)}}},
		{"or drops a missing property", vector.Or(vector.Eq("nope", "x"), vector.Eq("lang", "go")), leaf("Equal", "lang", "valueText", "go")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ms, err := s.Search(ctx, vector.Query{Vector: []float32{1, 0}, Filter: tc.filter})
			require.NoError(t, err)
			require.Len(t, ms, 1)
			require.Equal(t, tc.want, lastWhere(t, f))
		})
	}

	for _, never := range []*vector.Filter{
		vector.Eq("nope", "x"), vector.Eq("n", "2"), vector.Gt("lang", 1), vector.Eq("tags", true), vector.In("lang"),
	} {
		before := len(f.calls("POST", "/v1/graphql"))
		ms, err := s.Search(ctx, vector.Query{Vector: []float32{1, 0}, Filter: never})
		require.NoError(t, err)
		require.Empty(t, ms)
		require.Len(t, f.calls("POST", "/v1/graphql"), before, "%v can match nothing, so no query is sent", never)
	}
}

func TestUpsertChecksProperties(t *testing.T) {
	ctx := context.Background()
	f := startFake(t)
	s, err := weaviate.Open(ctx, weaviate.Config{Client: client(t, f), Class: "P", Dimensions: 2})
	require.NoError(t, err)
	require.NoError(t, s.Upsert(ctx, vector.Document{ID: "a", Text: "t", Vector: []float32{1, 0}, Metadata: map[string]any{"n": 1}}))

	for _, tc := range []struct {
		name string
		md   map[string]any
		want string
	}{
		{"another type", map[string]any{"n": "one"}, "holds it as number"},
		{"reserved key", map[string]any{"loom_text": "x"}, "reserved"},
		{"not a property name", map[string]any{"Big-Key": "x"}, "not a Weaviate property name"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := s.Upsert(ctx, vector.Document{ID: "b", Text: "t", Vector: []float32{0, 1}, Metadata: tc.md})
			require.ErrorIs(t, err, vector.ErrInvalidDocument)
			require.ErrorContains(t, err, tc.want)
		})
	}
	err = s.Upsert(ctx,
		vector.Document{ID: "c", Vector: []float32{0, 1}, Metadata: map[string]any{"m": 1}},
		vector.Document{ID: "d", Vector: []float32{0, 1}, Metadata: map[string]any{"m": "x"}})
	require.ErrorIs(t, err, vector.ErrInvalidDocument)

	ups := f.calls("POST", "/v1/batch/objects")
	require.Len(t, ups, 1, "rejected documents send no batch")
	obj := ups[0].Body.(map[string]any)["objects"].([]any)[0].(map[string]any)
	require.Equal(t, weaviate.ObjectID("a"), obj["id"])
	require.Equal(t, map[string]any{"loom_id": "a", "loom_text": "t", "n": 1.0}, obj["properties"])

	require.NoError(t, s.Delete(ctx, "a", "zz"))
	dels := f.calls("DELETE", "/v1/batch/objects")
	require.Len(t, dels, 1)
	require.Equal(t, map[string]any{"class": "P", "where": map[string]any{"operands": nil, "operator": "ContainsAny", "path": []any{"id"}, "valueTextArray": []any{weaviate.ObjectID("a"), weaviate.ObjectID("zz")}}},
		dels[0].Body.(map[string]any)["match"], "deleted by object UUID, which is exact")
}

// TestBatchErrorsAreReported checks that a per-object error in a batch
// reply fails the upsert: here the class lost a property behind the
// store's back.
func TestBatchErrorsAreReported(t *testing.T) {
	ctx := context.Background()
	f := startFake(t)
	s, err := weaviate.Open(ctx, weaviate.Config{Client: client(t, f), Class: "E", Dimensions: 2})
	require.NoError(t, err)
	require.NoError(t, s.Upsert(ctx, vector.Document{ID: "a", Vector: []float32{1, 0}, Metadata: map[string]any{"k": "v"}}))
	f.mu.Lock()
	delete(f.classes["E"].props, "k")
	f.mu.Unlock()
	err = s.Upsert(ctx, vector.Document{ID: "b", Vector: []float32{1, 0}, Metadata: map[string]any{"k": "v"}})
	require.ErrorContains(t, err, "no such prop with name 'k'")
}

func TestOpenChecksTheClass(t *testing.T) {
	ctx := context.Background()
	f := startFake(t)
	c := client(t, f)
	f.mu.Lock()
	f.classes["L2"] = &class{def: map[string]any{"class": "L2", "vectorIndexConfig": map[string]any{"distance": "l2-squared"}}, props: map[string]string{}}
	f.mu.Unlock()
	_, err := weaviate.Open(ctx, weaviate.Config{Client: c, Class: "L2", Dimensions: 2})
	require.ErrorIs(t, err, weaviate.ErrConfig)
	require.ErrorContains(t, err, "cosine")

	for _, tc := range []struct {
		name string
		cfg  weaviate.Config
		want string
	}{
		{"no client", weaviate.Config{Dimensions: 2}, "Client is nil"},
		{"class name", weaviate.Config{Client: c, Class: "lower", Dimensions: 2}, "upper-case"},
		{"negative dimensions", weaviate.Config{Client: c, Dimensions: -1}, "Dimensions is -1"},
		{"no dimensions", weaviate.Config{Client: c}, "no Embedder"},
		{"batch", weaviate.Config{Client: c, Dimensions: 2, BatchSize: -1}, "BatchSize is -1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := weaviate.Open(ctx, tc.cfg)
			require.ErrorIs(t, err, weaviate.ErrConfig)
			require.ErrorContains(t, err, tc.want)
		})
	}
}

func TestTextNeedsAnEmbedder(t *testing.T) {
	ctx := context.Background()
	f := startFake(t)
	s, err := weaviate.Open(ctx, weaviate.Config{Client: client(t, f), Class: "NoEmb", Dimensions: 2})
	require.NoError(t, err)
	require.ErrorIs(t, s.Upsert(ctx, vector.Document{ID: "a", Text: "words"}), vector.ErrNoEmbedder)
	_, err = s.Search(ctx, vector.Query{Text: "words"})
	require.ErrorIs(t, err, vector.ErrNoEmbedder)
	require.Empty(t, f.calls("POST", "/v1/batch/objects"))
	require.Empty(t, f.calls("POST", "/v1/graphql"))
}

// TestKAboveTheServerMaximum checks that a K the server would refuse is an
// ErrInvalidQuery naming K and the maximum, and is not sent.
func TestKAboveTheServerMaximum(t *testing.T) {
	ctx := context.Background()
	f := startFake(t)
	s, err := weaviate.Open(ctx, weaviate.Config{Client: client(t, f), Class: "K", Dimensions: 2})
	require.NoError(t, err)
	_, err = s.Search(ctx, vector.Query{Vector: []float32{1, 0}, K: weaviate.MaxK + 1})
	require.ErrorIs(t, err, vector.ErrInvalidQuery)
	require.ErrorContains(t, err, "K is 10001")
	require.ErrorContains(t, err, "at most 10000")
	require.Empty(t, f.calls("POST", "/v1/graphql"), "checked before sending")
	_, err = s.Search(ctx, vector.Query{Vector: []float32{1, 0}, K: weaviate.MaxK})
	require.NoError(t, err, "K at the maximum is sent")
}

// TestNamesDifferingOnlyInCase checks the typed errors for names Weaviate
// compares case-insensitively: a metadata key beside a property spelt
// otherwise, and a class beside a class spelt otherwise.
func TestNamesDifferingOnlyInCase(t *testing.T) {
	ctx := context.Background()
	f := startFake(t)
	s, err := weaviate.Open(ctx, weaviate.Config{Client: client(t, f), Class: "Case", Dimensions: 2})
	require.NoError(t, err)
	v := []float32{1, 0}
	require.NoError(t, s.Upsert(ctx, vector.Document{ID: "a", Text: "t", Vector: v, Metadata: map[string]any{"fooBar": 1}}))
	for _, tc := range []struct {
		name string
		md   map[string]any
		key  string
	}{
		{"an existing property", map[string]any{"foobar": 2}, `"foobar"`},
		{"within one upsert", map[string]any{"baz": 1, "baZ": 2}, `"ba`},
		{"a reserved property", map[string]any{"loom_ID": "x"}, `"loom_ID"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := len(f.calls("POST", "/properties"))
			err := s.Upsert(ctx, vector.Document{ID: "b", Text: "t", Vector: v, Metadata: tc.md})
			require.ErrorIs(t, err, vector.ErrInvalidDocument)
			require.ErrorContains(t, err, tc.key)
			require.ErrorContains(t, err, "case")
			require.Len(t, f.calls("POST", "/properties"), before, "no property is added")
		})
	}

	_, err = weaviate.Open(ctx, weaviate.Config{Client: client(t, f), Class: "CASE", Dimensions: 2})
	require.ErrorIs(t, err, weaviate.ErrConfig)
	require.ErrorContains(t, err, `"CASE"`)
	require.ErrorContains(t, err, `existing class "Case"`)
}

// TestWhiteSpaceExactFilter checks that matches the server's trimmed
// comparison lets through are dropped and the query sent again with a
// larger limit, so the top K of the exact matches come back.
func TestWhiteSpaceExactFilter(t *testing.T) {
	ctx := context.Background()
	f := startFake(t)
	s, err := weaviate.Open(ctx, weaviate.Config{Client: client(t, f), Class: "Ws", Dimensions: 2})
	require.NoError(t, err)
	var docs []vector.Document
	for i, lang := range []string{"go ", " go", "go ", "go", "go", "go"} {
		// Closest first: the padded values rank above the exact ones.
		docs = append(docs, vector.Document{ID: fmt.Sprint("d", i), Text: "t", Vector: []float32{1, float32(i) / 10}, Metadata: map[string]any{"lang": lang}})
	}
	require.NoError(t, s.Upsert(ctx, docs...))
	before := len(f.calls("POST", "/v1/graphql"))
	ms, err := s.Search(ctx, vector.Query{Vector: []float32{1, 0}, K: 2, Filter: vector.Eq("lang", "go")})
	require.NoError(t, err)
	require.Equal(t, []string{"d3", "d4"}, []string{ms[0].ID, ms[1].ID})
	require.Greater(t, len(f.calls("POST", "/v1/graphql"))-before, 1, "sent again with a larger limit")
	ms, err = s.Search(ctx, vector.Query{Vector: []float32{1, 0}, K: 10, Filter: vector.Eq("lang", "go ")})
	require.NoError(t, err)
	require.Len(t, ms, 2)
	require.ElementsMatch(t, []string{"d0", "d2"}, []string{ms[0].ID, ms[1].ID})
}
