package jsrt

import (
	"context"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/require"
)

// TestSymbolsReadWithoutRunningCode: a Symbol's description is read from
// its slot through goja's Go API, for the value and for console lines,
// even when the code replaced Symbol.prototype.description; a long
// description is cut to what fits.
func TestSymbolsReadWithoutRunningCode(t *testing.T) {
	e := newTestInProcess(t, Config{Concurrency: 1})
	const hostile = `Object.defineProperty(Symbol.prototype, "description", {get() { globalThis.ran = 1; return "evil" }});`
	for _, c := range []struct {
		name, code, value, log string
	}{
		{"described", `console.log(Symbol("s")); Symbol("s")`, `{"$symbol":"s"}`, "Symbol(s)"},
		{"no description", `console.log(Symbol()); Symbol()`, `{"$symbol":""}`, "Symbol()"},
		{"empty description", `console.log(Symbol("")); Symbol("")`, `{"$symbol":""}`, "Symbol()"},
		{"not ASCII", `console.log(Symbol("é✓😀")); Symbol("é✓😀")`, `{"$symbol":"é✓😀"}`, "Symbol(é✓😀)"},
		{"well-known", `console.log(Symbol.iterator); Symbol.iterator`, `{"$symbol":"Symbol.iterator"}`, "Symbol(Symbol.iterator)"},
		{"getter replaced", hostile + `console.log(Symbol("s")); [Symbol("s"), globalThis.ran]`, `[{"$symbol":"s"},null]`, "Symbol(s)"},
	} {
		t.Run(c.name, func(t *testing.T) {
			res, err := e.Run(context.Background(), c.code)
			require.NoError(t, err)
			require.JSONEq(t, c.value, string(res.Value))
			require.Len(t, res.Logs, 1)
			require.Equal(t, c.log, res.Logs[0].Text)
		})
	}
	t.Run("long description cut", func(t *testing.T) {
		res, err := e.Run(context.Background(), `console.log(Symbol("é".repeat(1 << 20))); 1`)
		require.NoError(t, err)
		require.NotEmpty(t, res.Logs)
		line := res.Logs[0].Text
		require.Less(t, len(line), 1<<20, "the console line is cut")
		require.True(t, strings.HasPrefix(line, "Symbol(éé"), TruncateUTF8(line, 40))
		require.True(t, utf8.ValidString(line), "cut on a character boundary")
		_, err = e.Run(context.Background(), `Symbol("é".repeat(1 << 20))`)
		require.ErrorIs(t, err, ErrOutputTooLarge, "a value too large to return is refused, not cut")
	})
}
