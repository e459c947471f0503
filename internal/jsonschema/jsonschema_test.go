package jsonschema

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestCheck(t *testing.T) {
	s, err := Compile([]byte(`{"type":"object","properties":{"name":{"type":"string"},"tags":{"type":"array","items":{"type":"string","maxLength":3}}},"required":["name"],"additionalProperties":false}`))
	require.NoError(t, err)
	for _, tc := range []struct {
		name string
		data string
		want []Issue
	}{
		{"valid", `{"name":"a","tags":["x"]}`, nil},
		{"missing field", `{}`, []Issue{{Path: []string{"name"}, Rule: "required"}}},
		{"unknown field", `{"name":"a","age":3}`, []Issue{{Path: []string{"age"}, Rule: "unknown field"}}},
		{"wrong type", `{"name":7}`, []Issue{{Path: []string{"name"}, Rule: "expected string, got number"}}},
		{"root type", `[]`, []Issue{{Path: []string{}, Rule: "expected object, got array"}}},
		{"nested rule", `{"name":"a","tags":["long"]}`, []Issue{{Path: []string{"tags", "0"}, Rule: "maxLength: got 4, want 3"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := s.Check([]byte(tc.data))
			require.NoError(t, err)
			require.Equal(t, tc.want, got)
		})
	}
	_, err = s.Check([]byte(`{`))
	require.ErrorIs(t, err, ErrNotJSON)
}

func TestCompileErrors(t *testing.T) {
	for _, tc := range []struct{ raw, want string }{
		{`{`, "schema is not valid JSON"},
		{`{"type":"nonsense"}`, "schema does not compile"},
	} {
		_, err := Compile([]byte(tc.raw))
		require.ErrorContains(t, err, tc.want)
	}
	_, err := Compile([]byte(`{`))
	require.ErrorIs(t, err, ErrNotJSON)
}
