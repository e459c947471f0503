package jsonschema

import (
	"encoding/json"
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestPointer(t *testing.T) {
	for _, tc := range []struct {
		path []string
		want string
	}{
		{nil, "/"},
		{[]string{}, "/"},
		{[]string{"a", "0"}, "/a/0"},
		{[]string{"a/b", "c~d"}, "/a~1b/c~0d"},
		{[]string{""}, "/"},
	} {
		require.Equal(t, tc.want, Pointer(tc.path), "%q", tc.path)
	}
}

func TestValidate(t *testing.T) {
	s, err := Compile([]byte(`{"type":"object","properties":{"n":{"type":"integer"}},"required":["n"]}`))
	require.NoError(t, err)
	require.NoError(t, s.Validate([]byte(`{"n":1}`)))

	err = s.Validate([]byte(`{"n":"x"}`))
	var inv *InvalidError
	require.ErrorAs(t, err, &inv)
	require.Equal(t, []Issue{{Path: []string{"n"}, Rule: "expected integer, got string"}}, inv.Issues)
	require.EqualError(t, err, "at /n: expected integer, got string")

	err = s.Validate([]byte(`5`))
	require.EqualError(t, err, "at /: expected object, got number")

	err = s.Validate([]byte(`{"n":`))
	require.ErrorIs(t, err, ErrNotJSON)
	require.False(t, errors.As(err, &inv), "data that is not JSON is not an InvalidError")
}

func TestInvalidErrorListsEightAndCounts(t *testing.T) {
	props := map[string]any{}
	var names []string
	data := map[string]any{}
	for i := range 11 {
		n := fmt.Sprintf("f%02d", i)
		props[n] = map[string]any{"type": "string"}
		names = append(names, n)
		data[n] = i
	}
	raw, err := json.Marshal(map[string]any{"type": "object", "properties": props, "required": names})
	require.NoError(t, err)
	s, err := Compile(raw)
	require.NoError(t, err)
	in, err := json.Marshal(data)
	require.NoError(t, err)
	err = s.Validate(in)
	var inv *InvalidError
	require.ErrorAs(t, err, &inv)
	require.Len(t, inv.Issues, 11)
	require.Regexp(t, `^(at /f\d\d: expected string, got number; ){8}and 3 more$`, err.Error())
}
