package vectortest

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"strconv"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/loomwork/loom/vector"
)

// Dims is the dimension of the stores the suite opens.
const Dims = 32

// Options tune [Run] for a store.
type Options struct {
	// Reopen closes s and opens the same storage again, returning the new
	// store. Nil skips the restart test (for stores that keep nothing).
	Reopen func(t *testing.T, s vector.Store) vector.Store
	// Unsupported names filter cases (the names of the subtests under
	// "Filter", as "eq_list") that the store declares it cannot apply; for
	// these the suite requires [vector.ErrUnsupportedFilter] instead of
	// results. Every other case must return exactly the right rows.
	Unsupported []string
	// Writers is the number of concurrent writers and of concurrent
	// readers in the concurrency test: 0 means 4.
	Writers int
	// ScoreTolerance is the largest accepted difference between a returned
	// score and the exact cosine similarity: 0 means 1e-3.
	ScoreTolerance float32
}

// Embedder returns the embedder the stores under test must use for text:
// a [vector.HashEmbedder] of dims dimensions (0 or less: its default).
func Embedder(dims int) *vector.HashEmbedder {
	e, _ := vector.NewHashEmbedder(max(dims, 0)) // fails only for negative dims
	return e
}

// Memory returns an empty in-memory store with [Embedder](dims), closed
// when the test ends.
func Memory(t testing.TB, dims int) *vector.Memory {
	t.Helper()
	s, err := vector.NewMemory(vector.MemoryConfig{Embedder: Embedder(dims)})
	require.NoError(t, err)
	t.Cleanup(func() { _ = s.Close() })
	return s
}

// Run runs the conformance suite. open must return an empty store of dims
// dimensions whose embedder is [Embedder](dims); the suite closes every
// store it opens.
func Run(t *testing.T, open func(t *testing.T, dims int) vector.Store, opts Options) {
	t.Helper()
	if opts.Writers == 0 {
		opts.Writers = 4
	}
	if opts.ScoreTolerance == 0 {
		opts.ScoreTolerance = 1e-3
	}
	s := &suite{open: open, opts: opts}
	t.Run("Dimensions", s.dimensions)
	t.Run("UpsertAndSearchByVector", s.upsertAndSearch)
	t.Run("Overwrite", s.overwrite)
	t.Run("Delete", s.delete)
	t.Run("SearchByText", s.searchByText)
	t.Run("K", s.k)
	t.Run("MinScore", s.minScore)
	t.Run("Filter", s.filters)
	t.Run("FilterBeforeTopK", s.filterBeforeTopK)
	t.Run("ExactIDs", s.exactIDs)
	t.Run("EmptyList", s.emptyList)
	t.Run("Batches", s.batches)
	t.Run("WithVectors", s.withVectors)
	t.Run("DimensionMismatch", s.dimensionMismatch)
	t.Run("InvalidInput", s.invalidInput)
	t.Run("Concurrent", s.concurrent)
	t.Run("Close", s.close)
	if opts.Reopen != nil {
		t.Run("Restart", s.restart)
	}
}

type suite struct {
	open func(t *testing.T, dims int) vector.Store
	opts Options
}

// store opens an empty store that is closed when t ends.
func (s *suite) store(t *testing.T) vector.Store {
	t.Helper()
	st := s.open(t, Dims)
	require.NotNil(t, st, "open returned a nil store")
	t.Cleanup(func() { _ = st.Close() })
	return st
}

// randVec returns a deterministic random vector.
func randVec(r *rand.Rand) []float32 {
	v := make([]float32, Dims)
	for i := range v {
		v[i] = float32(r.NormFloat64())
	}
	return v
}

func cosine(a, b []float32) float32 {
	var dot, na, nb float64
	for i := range a {
		dot += float64(a[i]) * float64(b[i])
		na += float64(a[i]) * float64(a[i])
		nb += float64(b[i]) * float64(b[i])
	}
	return float32(dot / math.Sqrt(na*nb))
}

// scored is a document with its exact score against a query.
type scored struct {
	doc   vector.Document
	score float32
}

// expect scores docs against q, keeps those f matches and minScore allows,
// and sorts them best first.
func expect(docs []vector.Document, q []float32, f *vector.Filter, minScore float32) []scored {
	var out []scored
	for _, d := range docs {
		if !f.Match(d.Metadata) {
			continue
		}
		sc := cosine(d.Vector, q)
		if minScore != 0 && sc < minScore {
			continue
		}
		out = append(out, scored{d, sc})
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].score > out[j].score })
	return out
}

// requireTopK checks that got is the best k of want: as many rows as
// min(k, len(want)), each a wanted id with its exact score, best first,
// and none scoring below a wanted row that was left out. Comparing scores
// rather than the exact order keeps near-ties from failing stores that
// compute in float32.
func (s *suite) requireTopK(t *testing.T, got []vector.Match, want []scored, k int) {
	t.Helper()
	tol := s.opts.ScoreTolerance
	n := min(k, len(want))
	require.Len(t, got, n, "want %d matches: got %v, want %v", n, ids(got), scoredIDs(want))
	byID := make(map[string]scored, len(want))
	for _, w := range want {
		byID[w.doc.ID] = w
	}
	seen := map[string]bool{}
	for i, m := range got {
		w, ok := byID[m.ID]
		require.True(t, ok, "match %d is %q, which should not match: got %v, want %v", i, m.ID, ids(got), scoredIDs(want))
		require.False(t, seen[m.ID], "id %q returned twice: %v", m.ID, ids(got))
		seen[m.ID] = true
		require.InDelta(t, w.score, m.Score, float64(tol), "score of %q", m.ID)
		if i > 0 {
			require.LessOrEqual(t, m.Score, got[i-1].Score+tol, "matches not best first: %v", ids(got))
		}
	}
	if n > 0 && n < len(want) {
		require.GreaterOrEqual(t, got[n-1].Score+tol, want[n].score,
			"a better match was left out: got %v, want %v", ids(got), scoredIDs(want[:n]))
	}
}

func ids(ms []vector.Match) []string {
	out := make([]string, len(ms))
	for i, m := range ms {
		out[i] = m.ID
	}
	return out
}

func scoredIDs(ss []scored) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = s.doc.ID
	}
	return out
}

// all returns every document of st, by a search with a large K.
func all(t *testing.T, st vector.Store, q []float32) []vector.Match {
	t.Helper()
	ms, err := st.Search(context.Background(), vector.Query{Vector: q, K: 10000})
	require.NoError(t, err)
	return ms
}

// corpus returns n documents with random vectors and metadata: "lang" (go,
// js or py; missing on every seventh), "n" (the index as a number), "even"
// (a bool), "tags" (a list) and "code" (the index as a string).
func corpus(r *rand.Rand, n int) []vector.Document {
	langs := []string{"go", "js", "py"}
	docs := make([]vector.Document, n)
	for i := range docs {
		md := map[string]any{
			"n":    float64(i),
			"even": i%2 == 0,
			"tags": []string{"t" + strconv.Itoa(i%5), "all"},
			"code": strconv.Itoa(i),
		}
		if i%7 != 6 {
			md["lang"] = langs[i%3]
		}
		docs[i] = vector.Document{
			ID:       fmt.Sprintf("doc-%02d", i),
			Text:     fmt.Sprintf("document number %d", i),
			Vector:   randVec(r),
			Metadata: md,
		}
	}
	return docs
}

func (s *suite) dimensions(t *testing.T) {
	st := s.store(t)
	require.Equal(t, Dims, st.Dimensions())
}

func (s *suite) upsertAndSearch(t *testing.T) {
	ctx := context.Background()
	st := s.store(t)
	r := rand.New(rand.NewPCG(1, 1))
	docs := corpus(r, 20)
	require.NoError(t, st.Upsert(ctx, docs...))
	// Metadata as a caller writes it: ints, []any of strings.
	require.NoError(t, st.Upsert(ctx, vector.Document{
		ID: "typed", Text: "typed metadata", Vector: randVec(r),
		Metadata: map[string]any{"i": 7, "f32": float32(0.5), "list": []any{"a", "b"}, "s": "x", "b": true},
	}))

	target := docs[5]
	ms, err := st.Search(ctx, vector.Query{Vector: target.Vector, K: 3})
	require.NoError(t, err)
	require.Len(t, ms, 3)
	require.Equal(t, target.ID, ms[0].ID)
	require.InDelta(t, 1, ms[0].Score, float64(s.opts.ScoreTolerance))
	require.Equal(t, target.Text, ms[0].Text)
	require.Equal(t, target.Metadata, ms[0].Metadata, "metadata round trip")
	s.requireTopK(t, ms, expect(docs, target.Vector, nil, 0), 3)

	var typed vector.Document
	for _, m := range all(t, st, target.Vector) {
		if m.ID == "typed" {
			typed = m.Document
		}
	}
	require.Equal(t, map[string]any{"i": 7.0, "f32": 0.5, "list": []string{"a", "b"}, "s": "x", "b": true},
		typed.Metadata, "numbers come back as float64, lists as []string")
}

func (s *suite) overwrite(t *testing.T) {
	ctx := context.Background()
	st := s.store(t)
	r := rand.New(rand.NewPCG(2, 2))
	docs := corpus(r, 10)
	require.NoError(t, st.Upsert(ctx, docs...))

	v2 := randVec(r)
	require.NoError(t, st.Upsert(ctx, vector.Document{ID: docs[3].ID, Text: "replaced", Vector: v2, Metadata: map[string]any{"lang": "zig"}}))
	ms := all(t, st, v2)
	require.Len(t, ms, 10, "overwriting an id keeps one copy")
	require.Equal(t, docs[3].ID, ms[0].ID)
	require.Equal(t, "replaced", ms[0].Text)
	require.Equal(t, map[string]any{"lang": "zig"}, ms[0].Metadata, "overwrite replaces the metadata, not merges it")
	require.InDelta(t, 1, ms[0].Score, float64(s.opts.ScoreTolerance))

	// The old vector no longer finds the document first.
	ms, err := st.Search(ctx, vector.Query{Vector: docs[3].Vector, K: 10, Filter: vector.Eq("lang", "zig")})
	require.NoError(t, err)
	require.Len(t, ms, 1)
	require.InDelta(t, cosine(v2, docs[3].Vector), ms[0].Score, float64(s.opts.ScoreTolerance))

	// Within one call, the last document of an id wins.
	v3, v4 := randVec(r), randVec(r)
	require.NoError(t, st.Upsert(ctx,
		vector.Document{ID: "dup", Text: "first", Vector: v3},
		vector.Document{ID: "dup", Text: "second", Vector: v4}))
	ms = all(t, st, v4)
	require.Len(t, ms, 11)
	require.Equal(t, "dup", ms[0].ID)
	require.Equal(t, "second", ms[0].Text)
}

func (s *suite) delete(t *testing.T) {
	ctx := context.Background()
	st := s.store(t)
	r := rand.New(rand.NewPCG(3, 3))
	docs := corpus(r, 10)
	require.NoError(t, st.Upsert(ctx, docs...))
	require.NoError(t, st.Delete(ctx, docs[0].ID, docs[4].ID, "no-such-id"))
	require.NoError(t, st.Delete(ctx))
	ms := all(t, st, docs[0].Vector)
	require.Len(t, ms, 8)
	for _, m := range ms {
		require.NotContains(t, []string{docs[0].ID, docs[4].ID}, m.ID)
	}
	// A deleted id can be stored again.
	require.NoError(t, st.Upsert(ctx, docs[0]))
	ms, err := st.Search(ctx, vector.Query{Vector: docs[0].Vector, K: 1})
	require.NoError(t, err)
	require.Equal(t, docs[0].ID, ms[0].ID)
}

// exactIDs: ids and filter values are compared exactly, white space and
// case included: deleting "a" leaves " a", "a " and "A", and Eq("lang",
// "go") matches neither "go " nor "Go".
func (s *suite) exactIDs(t *testing.T) {
	ctx := context.Background()
	st := s.store(t)
	r := rand.New(rand.NewPCG(12, 12))
	names := []string{"a", " a", "a ", "A"}
	langs := []string{"go", "go ", " go", "Go"}
	docs := make([]vector.Document, len(names))
	for i := range names {
		docs[i] = vector.Document{ID: names[i], Text: "doc " + names[i], Vector: randVec(r),
			Metadata: map[string]any{"lang": langs[i], "tags": []string{langs[i]}}}
	}
	require.NoError(t, st.Upsert(ctx, docs...))
	for _, tc := range []struct {
		name string
		f    *vector.Filter
		want []string
	}{
		{"eq", vector.Eq("lang", "go"), []string{"a"}},
		{"eq with a space", vector.Eq("lang", "go "), []string{" a"}},
		{"list holds", vector.Eq("tags", "go"), []string{"a"}},
		{"in", vector.In("lang", "Go", " go"), []string{"a ", "A"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ms, err := st.Search(ctx, vector.Query{Vector: docs[0].Vector, K: 10, Filter: tc.f})
			require.NoError(t, err)
			require.ElementsMatch(t, tc.want, ids(ms))
		})
	}
	require.NoError(t, st.Delete(ctx, "a"))
	require.ElementsMatch(t, []string{" a", "a ", "A"}, ids(all(t, st, docs[0].Vector)), "deleting \"a\" deletes only \"a\"")
}

// emptyList: an empty list in metadata is left out, as the servers that
// cannot store one do, and the rest of the metadata is kept.
func (s *suite) emptyList(t *testing.T) {
	ctx := context.Background()
	st := s.store(t)
	v := randVec(rand.New(rand.NewPCG(13, 13)))
	require.NoError(t, st.Upsert(ctx,
		vector.Document{ID: "e", Text: "e", Vector: v, Metadata: map[string]any{"tags": []string{}, "lang": "go"}},
		vector.Document{ID: "f", Text: "f", Vector: v, Metadata: map[string]any{"tags": []any{}}}))
	got := map[string]map[string]any{}
	for _, m := range all(t, st, v) {
		got[m.ID] = m.Metadata
	}
	require.Equal(t, map[string]any{"lang": "go"}, got["e"])
	require.Empty(t, got["f"])
}

// batches: writes and deletes larger than any server's request limit
// (Chroma's max_batch_size is 5,461) are split by the store.
func (s *suite) batches(t *testing.T) {
	if testing.Short() {
		t.Skip("6,000 documents")
	}
	ctx := context.Background()
	st := s.store(t)
	r := rand.New(rand.NewPCG(14, 14))
	const n = 6000
	docs := make([]vector.Document, n)
	idList := make([]string, n)
	for i := range docs {
		idList[i] = "b" + strconv.Itoa(i)
		docs[i] = vector.Document{ID: idList[i], Text: idList[i], Vector: randVec(r)}
	}
	require.NoError(t, st.Upsert(ctx, docs...))
	ms, err := st.Search(ctx, vector.Query{Vector: docs[n-1].Vector, K: 1})
	require.NoError(t, err)
	require.Equal(t, docs[n-1].ID, ms[0].ID, "the last batch was written")
	require.NoError(t, st.Delete(ctx, idList[:n-1]...))
	require.Equal(t, []string{docs[n-1].ID}, ids(all(t, st, docs[0].Vector)))
}

// withVectors checks that matches carry their stored vector only when the
// query asks for it.
func (s *suite) withVectors(t *testing.T) {
	ctx := context.Background()
	st := s.store(t)
	r := rand.New(rand.NewPCG(15, 15))
	docs := corpus(r, 5)
	require.NoError(t, st.Upsert(ctx, docs...))
	byID := map[string][]float32{}
	for _, d := range docs {
		byID[d.ID] = d.Vector
	}
	ms, err := st.Search(ctx, vector.Query{Vector: docs[0].Vector, K: 5})
	require.NoError(t, err)
	require.Len(t, ms, 5)
	for _, m := range ms {
		require.Nil(t, m.Vector, "match %q carries a vector the query did not ask for", m.ID)
	}
	ms, err = st.Search(ctx, vector.Query{Vector: docs[0].Vector, K: 5, WithVectors: true})
	require.NoError(t, err)
	require.Len(t, ms, 5)
	for _, m := range ms {
		want := byID[m.ID]
		require.Len(t, m.Vector, len(want), "match %q carries its vector when asked", m.ID)
		require.InDelta(t, 1, cosine(want, m.Vector), float64(s.opts.ScoreTolerance), "match %q: the stored vector's direction", m.ID)
	}
}

func (s *suite) searchByText(t *testing.T) {
	ctx := context.Background()
	st := s.store(t)
	e := Embedder(Dims)
	texts := []string{
		"the quick brown fox jumps over the lazy dog",
		"parse the JSON config file and validate it",
		"a goroutine leak in the HTTP server",
		"bake the bread at two hundred degrees",
		"sort the slice of integers in place",
	}
	var docs []vector.Document
	for i, tx := range texts {
		docs = append(docs, vector.Document{ID: "t" + strconv.Itoa(i), Text: tx, Metadata: map[string]any{"i": i}})
	}
	require.NoError(t, st.Upsert(ctx, docs...), "documents without vectors are embedded from their text")
	for i := range docs {
		docs[i].Vector = e.EmbedOne(docs[i].Text)
		docs[i].Metadata = map[string]any{"i": float64(i)}
	}
	for i, tx := range texts {
		ms, err := st.Search(ctx, vector.Query{Text: tx, K: 5})
		require.NoError(t, err)
		require.Equal(t, "t"+strconv.Itoa(i), ms[0].ID, "the document's own text ranks first")
		require.InDelta(t, 1, ms[0].Score, float64(s.opts.ScoreTolerance))
		s.requireTopK(t, ms, expect(docs, e.EmbedOne(tx), nil, 0), 5)
	}
	ms, err := st.Search(ctx, vector.Query{Text: "json file parser", K: 1})
	require.NoError(t, err)
	require.Equal(t, "t1", ms[0].ID)

	// A Vector wins over Text.
	ms, err = st.Search(ctx, vector.Query{Text: texts[0], Vector: docs[3].Vector, K: 1})
	require.NoError(t, err)
	require.Equal(t, "t3", ms[0].ID)
}

func (s *suite) k(t *testing.T) {
	ctx := context.Background()
	st := s.store(t)
	r := rand.New(rand.NewPCG(4, 4))
	docs := corpus(r, 12)
	require.NoError(t, st.Upsert(ctx, docs...))
	q := randVec(r)
	want := expect(docs, q, nil, 0)
	for _, tc := range []struct {
		name string
		k    int
		n    int
	}{
		{"zero means the default", 0, vector.DefaultK},
		{"one", 1, 1},
		{"seven", 7, 7},
		{"more than stored", 50, 12},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ms, err := st.Search(ctx, vector.Query{Vector: q, K: tc.k})
			require.NoError(t, err)
			require.Len(t, ms, tc.n)
			s.requireTopK(t, ms, want, tc.n)
		})
	}
	_, err := st.Search(ctx, vector.Query{Vector: q, K: -1})
	require.ErrorIs(t, err, vector.ErrInvalidQuery)
	require.ErrorContains(t, err, "-1")

	empty := s.store(t)
	ms, err := empty.Search(ctx, vector.Query{Vector: q})
	require.NoError(t, err, "searching an empty store is not an error")
	require.Empty(t, ms)
}

func (s *suite) minScore(t *testing.T) {
	ctx := context.Background()
	st := s.store(t)
	r := rand.New(rand.NewPCG(5, 5))
	docs := corpus(r, 30)
	// Some documents close to the query so that a high MinScore keeps a few.
	q := randVec(r)
	for i := range 5 {
		v := slices.Clone(q)
		for j := range v {
			v[j] += float32(r.NormFloat64()) * 0.3 * float32(i+1)
		}
		docs = append(docs, vector.Document{ID: "near" + strconv.Itoa(i), Text: "near", Vector: v})
	}
	require.NoError(t, st.Upsert(ctx, docs...))
	for _, ms := range []float32{0.9, 0.5, 0.1, -0.1, -1, 1} {
		t.Run(fmt.Sprint(ms), func(t *testing.T) {
			want := expect(docs, q, nil, ms)
			// Rows within the tolerance of the bound may fall either side.
			got, err := st.Search(ctx, vector.Query{Vector: q, K: 100, MinScore: ms})
			require.NoError(t, err)
			for _, m := range got {
				require.GreaterOrEqual(t, m.Score+s.opts.ScoreTolerance, ms, "%q scores below MinScore", m.ID)
			}
			var sure []scored
			for _, w := range want {
				if w.score >= ms+s.opts.ScoreTolerance {
					sure = append(sure, w)
				}
			}
			require.GreaterOrEqual(t, len(got), len(sure))
			require.LessOrEqual(t, len(got), len(expect(docs, q, nil, ms-s.opts.ScoreTolerance)))
		})
	}
	for _, bad := range []float32{1.5, -2, float32(math.NaN())} {
		_, err := st.Search(ctx, vector.Query{Vector: q, MinScore: bad})
		require.ErrorIs(t, err, vector.ErrInvalidQuery, "MinScore %v", bad)
	}
}

// FilterCase is one case of the suite's filter table.
type FilterCase struct {
	Name   string
	Filter *vector.Filter
	Count  int // how many of the suite's 40 documents match
}

// FilterCases returns the suite's filter table over its 40-document corpus,
// so a store can see which cases it would name in [Options.Unsupported].
func FilterCases() []FilterCase {
	return []FilterCase{
		{"eq_string", vector.Eq("lang", "go"), 12},
		{"eq_bool", vector.Eq("even", true), 20},
		{"eq_number", vector.Eq("n", 3), 1},
		{"eq_number_float", vector.Eq("n", 3.0), 1},
		{"eq_number_not_string", vector.Eq("code", 3), 0},
		{"eq_string_not_number", vector.Eq("n", "3"), 0},
		{"eq_missing_field", vector.Eq("nope", "go"), 0},
		{"eq_list", vector.Eq("tags", "t1"), 8},
		{"eq_list_other_type", vector.Eq("tags", 1), 0},
		{"in_strings", vector.In("lang", "go", "py"), 24},
		{"in_numbers", vector.In("n", 1, 2.0, 39, 99), 3},
		{"in_mixed_types", vector.In("code", 5, "5", true), 1},
		{"in_list", vector.In("tags", "t0", "t4"), 16},
		{"in_empty", vector.In("lang"), 0},
		{"gt", vector.Gt("n", 30), 9},
		{"gte", vector.Gte("n", 30), 10},
		{"lt", vector.Lt("n", 5), 5},
		{"lte", vector.Lte("n", 5), 6},
		{"range_on_string", vector.Gt("code", 1), 0},
		{"range_missing_field", vector.Lt("nope", 1e9), 0},
		{"and", vector.And(vector.Eq("lang", "js"), vector.Eq("even", true)), 5},
		{"and_range", vector.And(vector.Gte("n", 10), vector.Lt("n", 20)), 10},
		{"or", vector.Or(vector.Eq("lang", "js"), vector.Gt("n", 37)), 13},
		{"nested", vector.Or(vector.And(vector.Eq("lang", "go"), vector.Lt("n", 10)), vector.Eq("tags", "t3")), 10},
		{"and_empty", vector.And(), 40},
		{"or_empty", vector.Or(), 0},
	}
}

func (s *suite) filters(t *testing.T) {
	ctx := context.Background()
	st := s.store(t)
	r := rand.New(rand.NewPCG(6, 6))
	docs := corpus(r, 40)
	require.NoError(t, st.Upsert(ctx, docs...))
	q := randVec(r)
	for _, tc := range FilterCases() {
		t.Run(tc.Name, func(t *testing.T) {
			want := expect(docs, q, tc.Filter, 0)
			require.Len(t, scoredIDs(want), tc.Count, "the reference evaluator disagrees with the table")
			got, err := st.Search(ctx, vector.Query{Vector: q, K: 100, Filter: tc.Filter})
			if slices.Contains(s.opts.Unsupported, tc.Name) {
				require.ErrorIs(t, err, vector.ErrUnsupportedFilter, "a store that cannot apply a filter says so")
				require.Empty(t, got)
				return
			}
			require.NoError(t, err)
			s.requireTopK(t, got, want, 100)
			// The same filter with a small K returns the best of the
			// matching rows, not the matching rows of the best.
			got, err = st.Search(ctx, vector.Query{Vector: q, K: 3, Filter: tc.Filter})
			require.NoError(t, err)
			s.requireTopK(t, got, want, 3)
		})
	}
}

func (s *suite) filterBeforeTopK(t *testing.T) {
	ctx := context.Background()
	st := s.store(t)
	r := rand.New(rand.NewPCG(7, 7))
	q := randVec(r)
	var docs []vector.Document
	// 60 documents close to the query, 3 far from it: only the far ones
	// pass the filter, and none of them is in the unfiltered top K.
	for i := range 60 {
		v := slices.Clone(q)
		for j := range v {
			v[j] += float32(r.NormFloat64()) * 0.2
		}
		docs = append(docs, vector.Document{ID: fmt.Sprintf("near-%02d", i), Text: "near", Vector: v,
			Metadata: map[string]any{"group": "near", "rank": float64(i)}})
	}
	for i := range 3 {
		v := randVec(r)
		for j := range v {
			v[j] -= q[j] * 0.5
		}
		docs = append(docs, vector.Document{ID: fmt.Sprintf("far-%d", i), Text: "far", Vector: v,
			Metadata: map[string]any{"group": "far", "rank": float64(100 + i)}})
	}
	require.NoError(t, st.Upsert(ctx, docs...))

	unfiltered, err := st.Search(ctx, vector.Query{Vector: q, K: 10})
	require.NoError(t, err)
	for _, m := range unfiltered {
		require.Equal(t, "near", m.Metadata["group"], "the test needs the far rows outside the unfiltered top K")
	}
	for _, tc := range []struct {
		name string
		f    *vector.Filter
	}{
		{"eq", vector.Eq("group", "far")},
		{"in", vector.In("group", "far", "elsewhere")},
		{"range", vector.Gte("rank", 100)},
		{"and", vector.And(vector.Eq("group", "far"), vector.Lt("rank", 102))},
	} {
		t.Run(tc.name, func(t *testing.T) {
			want := expect(docs, q, tc.f, 0)
			for _, k := range []int{1, 2, 3, 10} {
				got, err := st.Search(ctx, vector.Query{Vector: q, K: k, Filter: tc.f})
				require.NoError(t, err)
				s.requireTopK(t, got, want, k)
			}
		})
	}
}

func (s *suite) dimensionMismatch(t *testing.T) {
	ctx := context.Background()
	st := s.store(t)
	r := rand.New(rand.NewPCG(8, 8))
	good := vector.Document{ID: "good", Text: "good", Vector: randVec(r)}
	bad := vector.Document{ID: "bad", Text: "bad", Vector: append(randVec(r), 1)}
	err := st.Upsert(ctx, good, bad)
	requireDimensionError(t, err, Dims, Dims+1)
	require.Empty(t, all(t, st, good.Vector), "nothing is stored when a document is invalid")

	require.NoError(t, st.Upsert(ctx, good))
	_, err = st.Search(ctx, vector.Query{Vector: randVec(r)[:Dims-2]})
	requireDimensionError(t, err, Dims, Dims-2)
}

func requireDimensionError(t *testing.T, err error, want, got int) {
	t.Helper()
	require.ErrorIs(t, err, vector.ErrDimension)
	var de *vector.DimensionError
	require.ErrorAs(t, err, &de)
	require.Equal(t, want, de.Want)
	require.Equal(t, got, de.Got)
	require.ErrorContains(t, err, strconv.Itoa(want))
	require.ErrorContains(t, err, strconv.Itoa(got))
}

func (s *suite) invalidInput(t *testing.T) {
	ctx := context.Background()
	st := s.store(t)
	r := rand.New(rand.NewPCG(9, 9))
	v := randVec(r)
	for _, tc := range []struct {
		name string
		doc  vector.Document
		want string
	}{
		{"empty id", vector.Document{Text: "x", Vector: v}, "ID"},
		{"no text and no vector", vector.Document{ID: "a"}, "a"},
		{"zero vector", vector.Document{ID: "a", Vector: make([]float32, Dims)}, "zero"},
		{"NaN element", vector.Document{ID: "a", Vector: append(slices.Clone(v[:Dims-1]), float32(math.NaN()))}, "NaN"},
		{"metadata type", vector.Document{ID: "a", Vector: v, Metadata: map[string]any{"when": struct{}{}}}, "when"},
		{"metadata list of numbers", vector.Document{ID: "a", Vector: v, Metadata: map[string]any{"xs": []int{1}}}, "xs"},
		{"reserved key #", vector.Document{ID: "a", Vector: v, Metadata: map[string]any{"#doc": "x"}}, `"#doc"`},
		{"reserved key $", vector.Document{ID: "a", Vector: v, Metadata: map[string]any{"$in": "x"}}, `"$in"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := st.Upsert(ctx, tc.doc)
			require.ErrorIs(t, err, vector.ErrInvalidDocument)
			require.ErrorContains(t, err, tc.want)
		})
	}
	require.Empty(t, all(t, st, v))

	for _, tc := range []struct {
		name string
		q    vector.Query
		is   error
	}{
		{"neither text nor vector", vector.Query{}, vector.ErrInvalidQuery},
		{"zero vector", vector.Query{Vector: make([]float32, Dims)}, vector.ErrInvalidQuery},
		{"filter without field", vector.Query{Vector: v, Filter: vector.Eq("", "x")}, vector.ErrInvalidFilter},
		{"filter value type", vector.Query{Vector: v, Filter: vector.Eq("x", []int{1})}, vector.ErrInvalidFilter},
		{"nil operand", vector.Query{Vector: v, Filter: vector.And(vector.Eq("x", "y"), nil)}, vector.ErrInvalidFilter},
		{"unknown operator", vector.Query{Vector: v, Filter: &vector.Filter{Op: 99, Field: "x"}}, vector.ErrInvalidFilter},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := st.Search(ctx, tc.q)
			require.ErrorIs(t, err, tc.is)
			require.ErrorIs(t, err, vector.ErrInvalidQuery)
		})
	}
}

func (s *suite) concurrent(t *testing.T) {
	ctx := context.Background()
	st := s.store(t)
	const perWriter = 20
	w := s.opts.Writers
	q := randVec(rand.New(rand.NewPCG(10, 10)))
	var wg sync.WaitGroup
	errs := make(chan error, 4*w)
	done := make(chan struct{})
	for i := range w {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := rand.New(rand.NewPCG(11, uint64(i)))
			for j := range perWriter {
				d := vector.Document{ID: fmt.Sprintf("w%d-%d", i, j), Text: "x", Vector: randVec(r),
					Metadata: map[string]any{"writer": float64(i)}}
				if err := st.Upsert(ctx, d); err != nil {
					errs <- err
					return
				}
				// Every writer also overwrites one shared id.
				if err := st.Upsert(ctx, vector.Document{ID: "shared", Text: "x", Vector: d.Vector}); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	var readers sync.WaitGroup
	for range w {
		readers.Add(1)
		go func() {
			defer readers.Done()
			for {
				select {
				case <-done:
					return
				default:
				}
				ms, err := st.Search(ctx, vector.Query{Vector: q, K: 5, Filter: vector.Gte("writer", 0)})
				if err != nil {
					errs <- err
					return
				}
				for i := 1; i < len(ms); i++ {
					if ms[i].Score > ms[i-1].Score+s.opts.ScoreTolerance {
						errs <- fmt.Errorf("matches not best first: %v", ids(ms))
						return
					}
				}
			}
		}()
	}
	wg.Wait()
	close(done)
	readers.Wait()
	close(errs)
	for err := range errs {
		require.NoError(t, err)
	}
	ms := all(t, st, q)
	require.Len(t, ms, w*perWriter+1, "every write is kept and the shared id is stored once")
}

func (s *suite) close(t *testing.T) {
	ctx := context.Background()
	st := s.open(t, Dims)
	r := rand.New(rand.NewPCG(12, 12))
	v := randVec(r)
	require.NoError(t, st.Upsert(ctx, vector.Document{ID: "a", Vector: v}))
	require.NoError(t, st.Close())
	require.NoError(t, st.Close(), "a second Close returns nil")
	_, err := st.Search(ctx, vector.Query{Vector: v})
	require.ErrorIs(t, err, vector.ErrClosed)
	require.ErrorIs(t, st.Upsert(ctx, vector.Document{ID: "b", Vector: v}), vector.ErrClosed)
	require.ErrorIs(t, st.Delete(ctx, "a"), vector.ErrClosed)
}

func (s *suite) restart(t *testing.T) {
	ctx := context.Background()
	st := s.open(t, Dims)
	r := rand.New(rand.NewPCG(13, 13))
	docs := corpus(r, 25)
	require.NoError(t, st.Upsert(ctx, docs...))
	require.NoError(t, st.Upsert(ctx, vector.Document{ID: "text", Text: "embedded from its text"}))
	require.NoError(t, st.Delete(ctx, docs[2].ID))
	v := randVec(r)
	require.NoError(t, st.Upsert(ctx, vector.Document{ID: docs[3].ID, Text: "replaced", Vector: v, Metadata: map[string]any{"lang": "zig"}}))
	docs[3] = vector.Document{ID: docs[3].ID, Text: "replaced", Vector: v, Metadata: map[string]any{"lang": "zig"}}
	docs = slices.Delete(docs, 2, 3)
	q := randVec(r)
	before := all(t, st, q)

	st = s.opts.Reopen(t, st)
	require.NotNil(t, st, "Reopen returned a nil store")
	t.Cleanup(func() { _ = st.Close() })
	require.Equal(t, Dims, st.Dimensions())
	after := all(t, st, q)
	require.Len(t, after, len(before))
	require.Len(t, after, len(docs)+1)
	got := map[string]vector.Match{}
	for _, m := range after {
		got[m.ID] = m
	}
	for _, m := range before {
		a, ok := got[m.ID]
		require.True(t, ok, "%q lost in the restart", m.ID)
		require.Equal(t, m.Text, a.Text)
		require.Equal(t, m.Metadata, a.Metadata)
		require.InDelta(t, m.Score, a.Score, float64(s.opts.ScoreTolerance))
	}
	ms, err := st.Search(ctx, vector.Query{Text: "embedded from its text", K: 1})
	require.NoError(t, err)
	require.Equal(t, "text", ms[0].ID)
	ms, err = st.Search(ctx, vector.Query{Vector: q, K: 5, Filter: vector.Eq("lang", "go")})
	require.NoError(t, err)
	s.requireTopK(t, ms, expect(docs, q, vector.Eq("lang", "go"), 0), 5)

	// The reopened store takes writes.
	require.NoError(t, st.Upsert(ctx, vector.Document{ID: "after", Vector: randVec(r)}))
	require.Len(t, all(t, st, q), len(docs)+2)
}
