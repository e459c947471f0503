package providertest

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"
)

// JSONString returns s as a JSON string literal.
func JSONString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// Split cuts s into pieces of at most n bytes, so a test server can send
// text and tool arguments in several deltas.
func Split(s string, n int) []string {
	var out []string
	for len(s) > n {
		out = append(out, s[:n])
		s = s[n:]
	}
	if s != "" {
		out = append(out, s)
	}
	return out
}

// JSONOf encodes v, as tests compare parts of a decoded request body.
func JSONOf(t testing.TB, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	require.NoError(t, err)
	return string(b)
}
