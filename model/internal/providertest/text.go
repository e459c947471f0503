package providertest

import (
	"encoding/json"
	"testing"
	"time"

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

// ScenarioOptions returns a provider's options for a conformance
// scenario's IdleTimeout and MaxRetryWait, those that are set, made with
// the provider's WithIdleTimeout and WithMaxRetryWait.
func ScenarioOptions[O any](idle, wait time.Duration, withIdle, withWait func(time.Duration) O) []O {
	var opts []O
	if idle > 0 {
		opts = append(opts, withIdle(idle))
	}
	if wait > 0 {
		opts = append(opts, withWait(wait))
	}
	return opts
}
