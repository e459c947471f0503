package mcp

import (
	"encoding/json"
	"math"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestAppendDecodedIsJSONMarshal(t *testing.T) {
	for _, tc := range []struct {
		name string
		v    any
	}{
		{"null", nil},
		{"true", true},
		{"false", false},
		{"string", `say "<hi>" & go`},
		{"empty string", ""},
		{"zero", 0.0},
		{"negative zero", math.Copysign(0, -1)},
		{"integer", 42.0},
		{"negative", -17.5},
		{"fraction", 123.456},
		{"small", 1e-6},
		{"smaller", 1e-7},
		{"tiny", 5e-324},
		{"just below 1e21", 999999999999999900000.0},
		{"1e21", 1e21},
		{"huge", math.MaxFloat64},
		{"negative exponent", -2.5e-10},
		{"empty object", map[string]any{}},
		{"nil object", map[string]any(nil)},
		{"empty array", []any{}},
		{"nil array", []any(nil)},
		{"nested", map[string]any{"z": 1.0, "a": []any{"x", nil, true, map[string]any{"b<": "&", "a": 2.5}}, "m": map[string]any{}}},
		{"many keys", func() map[string]any {
			m := map[string]any{}
			for _, k := range []string{"q", "w", "e", "r", "t", "y", "u", "i", "o", "p", "a", "s", "d", "f", "g", "h", "j", "k", "l", "z"} {
				m[k] = k
			}
			return m
		}()},
	} {
		t.Run(tc.name, func(t *testing.T) {
			want, err := json.Marshal(tc.v)
			require.NoError(t, err)
			got, ok := appendDecoded(nil, tc.v)
			require.True(t, ok)
			require.Equal(t, string(want), string(got))
		})
	}
}

func TestAppendDecodedDeclines(t *testing.T) {
	for _, tc := range []struct {
		name string
		v    any
	}{
		{"NaN", math.NaN()},
		{"infinity in an array", []any{1.0, math.Inf(1)}},
		{"a number as text", json.Number("12")},
		{"an int", 3},
		{"another type inside an object", map[string]any{"a": struct{}{}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, ok := appendDecoded(nil, tc.v)
			require.False(t, ok)
		})
	}
}

func TestAppendDecodedRoundTrip(t *testing.T) {
	// Structured content as a tool result arrives: decoded from JSON.
	var v any
	require.NoError(t, json.Unmarshal([]byte(`{"sum":42,"items":[{"id":"a&b","score":0.000001},{"id":"c","score":1e-9}],"ok":true,"none":null}`), &v))
	want, err := json.Marshal(v)
	require.NoError(t, err)
	got, ok := appendDecoded(make([]byte, 0, 8), v)
	require.True(t, ok)
	require.Equal(t, string(want), string(got))
}

func TestMessageJSONIsJSONMarshal(t *testing.T) {
	type message struct {
		Message string `json:"message"`
	}
	for _, text := range []string{"", "hello", `say "<hi>" & go`, "line\nbreak\ttab", "a\u2028b", "bad \xff byte", "世界 🎉"} {
		want, err := json.Marshal(message{text})
		require.NoError(t, err)
		require.Equal(t, string(want), string(messageJSON(text)), "text %q", text)
	}
}
