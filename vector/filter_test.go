package vector_test

import (
	"math"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/loomwork/loom/vector"
)

func TestFilterMatch(t *testing.T) {
	md := map[string]any{
		"lang": "go", "n": 3.0, "i": 3, "ok": true, "tags": []string{"a", "b"}, "anys": []any{"x"},
	}
	for _, tc := range []struct {
		name string
		f    *vector.Filter
		want bool
	}{
		{"nil matches all", nil, true},
		{"eq string", vector.Eq("lang", "go"), true},
		{"eq string other", vector.Eq("lang", "js"), false},
		{"eq int against float field", vector.Eq("n", 3), true},
		{"eq float against int field", vector.Eq("i", 3.0), true},
		{"eq string against number", vector.Eq("n", "3"), false},
		{"eq number against string", vector.Eq("lang", 3), false},
		{"eq bool", vector.Eq("ok", true), true},
		{"eq bool against string", vector.Eq("ok", "true"), false},
		{"eq list element", vector.Eq("tags", "b"), true},
		{"eq list missing element", vector.Eq("tags", "c"), false},
		{"eq []any list", vector.Eq("anys", "x"), true},
		{"eq missing field", vector.Eq("nope", "go"), false},
		{"in", vector.In("lang", "js", "go"), true},
		{"in none", vector.In("lang", "js"), false},
		{"in empty", vector.In("lang"), false},
		{"in list", vector.In("tags", "z", "a"), true},
		{"gt", vector.Gt("n", 2), true},
		{"gt equal", vector.Gt("n", 3), false},
		{"gte equal", vector.Gte("n", 3), true},
		{"lt", vector.Lt("i", 4), true},
		{"lte equal", vector.Lte("i", 3), true},
		{"lt false", vector.Lt("n", 3), false},
		{"range on string", vector.Gt("lang", 0), false},
		{"range on bool", vector.Gt("ok", 0), false},
		{"range missing", vector.Lt("nope", 1), false},
		{"and", vector.And(vector.Eq("lang", "go"), vector.Gt("n", 1)), true},
		{"and one false", vector.And(vector.Eq("lang", "go"), vector.Gt("n", 5)), false},
		{"and empty", vector.And(), true},
		{"or", vector.Or(vector.Eq("lang", "js"), vector.Eq("ok", true)), true},
		{"or none", vector.Or(vector.Eq("lang", "js"), vector.Eq("ok", false)), false},
		{"or empty", vector.Or(), false},
		{"nil operand in and", vector.And(vector.Eq("lang", "go"), nil), false},
		{"unknown op", &vector.Filter{Op: 77, Field: "lang"}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			require.Equal(t, tc.want, tc.f.Match(md))
		})
	}
}

func TestFilterValidate(t *testing.T) {
	for _, tc := range []struct {
		name string
		f    *vector.Filter
		msg  string // "" means valid
	}{
		{"eq", vector.Eq("a", "x"), ""},
		{"nested", vector.Or(vector.And(vector.Eq("a", 1), vector.Gte("b", 2)), vector.In("c", "x", true, 2)), ""},
		{"empty and", vector.And(), ""},
		{"no field", vector.Eq("", "x"), "eq has no field"},
		{"eq slice", vector.Eq("a", []string{"x"}), `eq "a"`},
		{"eq nil", vector.Eq("a", nil), `eq "a"`},
		{"eq NaN", vector.Eq("a", math.NaN()), `eq "a"`},
		{"in map", vector.In("a", "x", map[string]any{}), `in "a": value 1`},
		{"range NaN", vector.Gt("a", math.NaN()), `gt "a"`},
		{"range inf", vector.Lte("a", math.Inf(1)), `lte "a"`},
		{"range string bound", &vector.Filter{Op: vector.OpLt, Field: "a", Value: "3"}, `lt "a"`},
		{"nil operand", vector.And(vector.Eq("a", "x"), nil), "operand 1 of and is nil"},
		{"nested bad", vector.Or(vector.And(vector.Eq("", 1))), "eq has no field"},
		{"unknown op", &vector.Filter{Op: 99, Field: "a"}, "unknown operator FilterOp(99)"},
		{"zero op", &vector.Filter{Field: "a"}, "unknown operator"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.f.Validate()
			if tc.msg == "" {
				require.NoError(t, err)
				return
			}
			require.ErrorIs(t, err, vector.ErrInvalidFilter)
			require.ErrorContains(t, err, tc.msg)
		})
	}
}

func TestNormalizeMetadata(t *testing.T) {
	got, err := vector.NormalizeMetadata(map[string]any{
		"s": "x", "b": false, "i": 7, "u8": uint8(2), "f32": float32(1.5), "f": 2.5,
		"ss": []string{"a"}, "anys": []any{"b", "c"},
	})
	require.NoError(t, err)
	require.Equal(t, map[string]any{
		"s": "x", "b": false, "i": 7.0, "u8": 2.0, "f32": 1.5, "f": 2.5,
		"ss": []string{"a"}, "anys": []string{"b", "c"},
	}, got)

	got, err = vector.NormalizeMetadata(nil)
	require.NoError(t, err)
	require.Nil(t, got)

	for _, tc := range []struct {
		name string
		md   map[string]any
		msg  string
	}{
		{"struct", map[string]any{"when": struct{}{}}, `metadata "when" is struct {}`},
		{"nil value", map[string]any{"x": nil}, `metadata "x"`},
		{"list of ints", map[string]any{"xs": []int{1}}, `metadata "xs"`},
		{"mixed any list", map[string]any{"xs": []any{"a", 1}}, `metadata "xs"`},
		{"NaN", map[string]any{"n": math.NaN()}, `metadata "n"`},
		{"empty key", map[string]any{"": 1}, "empty key"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := vector.NormalizeMetadata(tc.md)
			require.ErrorIs(t, err, vector.ErrInvalidDocument)
			require.ErrorContains(t, err, tc.msg)
		})
	}
}

func TestQueryPrepare(t *testing.T) {
	v := []float32{1, 0}
	q, err := vector.Query{Vector: v}.Prepare()
	require.NoError(t, err)
	require.Equal(t, vector.DefaultK, q.K)

	q, err = vector.Query{Text: "x", K: 9, MinScore: -0.5}.Prepare()
	require.NoError(t, err)
	require.Equal(t, 9, q.K)

	for _, tc := range []struct {
		name string
		q    vector.Query
		msg  string
	}{
		{"negative K", vector.Query{Vector: v, K: -2}, "K is -2"},
		{"nothing", vector.Query{}, "neither Text nor Vector"},
		{"MinScore high", vector.Query{Vector: v, MinScore: 1.01}, "MinScore is 1.01"},
		{"MinScore NaN", vector.Query{Vector: v, MinScore: float32(math.NaN())}, "MinScore is NaN"},
		{"zero vector", vector.Query{Vector: []float32{0, 0}}, "all zeros"},
		{"inf vector", vector.Query{Vector: []float32{float32(math.Inf(1)), 0}}, "element 0 is +Inf"},
		{"bad filter", vector.Query{Vector: v, Filter: vector.In("", 1)}, "in has no field"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := tc.q.Prepare()
			require.ErrorIs(t, err, vector.ErrInvalidQuery)
			require.ErrorContains(t, err, tc.msg)
		})
	}
}

func TestDimensionError(t *testing.T) {
	err := vector.CheckDimensions(`document "a"`, 1536, make([]float32, 768))
	require.ErrorIs(t, err, vector.ErrDimension)
	var de *vector.DimensionError
	require.ErrorAs(t, err, &de)
	require.Equal(t, 1536, de.Want)
	require.Equal(t, 768, de.Got)
	require.EqualError(t, err, `document "a" has 768 dimensions, the store has 1536: use an embedder of 1536 dimensions or open a store of 768`)
	require.NoError(t, vector.CheckDimensions("q", 2, []float32{1, 2}))
}
