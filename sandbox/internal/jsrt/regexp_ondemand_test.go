package jsrt

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestRegExpWhereverReached: named groups and the export of a RegExp work
// however the code reaches RegExp, and its getters are taken before the
// code runs, so that replacing them does not change what the host reads.
func TestRegExpWhereverReached(t *testing.T) {
	requireValues(t, newTestInProcess(t, Config{}), []valueCase{
		{`/(?<y>\d{4})/.exec("in 2024").groups.y`, `"2024"`},
		{`function f(s) { return s.replace(/(?<a>\w)(?<b>\w)/, "$<b>$<a>") } f("ab")`, `"ba"`},
		{`/a+b/gi`, `{"$regexp":"/a+b/gi"}`},
		{`new RegExp("(?<x>a)").exec("a").groups.x`, `"a"`},
		{`"ab".match("(?<x>b)").groups.x`, `"b"`},
		{`[..."abab".matchAll("(?<x>b)")].map(m => m.groups.x)`, `["b","b"]`},
		{`new globalThis["Reg" + "Exp"]("(?<x>a)").exec("a").groups.x`, `"a"`},
		{`Object.defineProperty(RegExp.prototype, "source", {get() { return "evil" }}); /a/g`, `{"$regexp":"/a/g"}`},
		{`"a-b".split("-").concat("a-b".replace("-", "$<x>"))`, `["a","b","a$<x>b"]`},
	})
}

// TestRegExpMissIsRefused: code can reach RegExp without its text showing
// it (reachesRegExp is a heuristic); the host then refuses to export the
// RegExp, with an error, rather than read it through the code's
// replacements.
func TestRegExpMissIsRefused(t *testing.T) {
	requireMissRefused(t, reachesRegExp, `const O = ({})["const" + "ructor"];
O["def" + "ineProperty"](O.prototype, "g", {get: O.prototype.valueOf});
const R = g["Reg" + "Exp"];
O["def" + "ineProperty"](R.prototype, "source", {get() { throw new Error("ran") }});
delete O.prototype.g;
new R("a", "g")`)
}

// requireMissRefused runs code that reaches a built-in where reaches does
// not see it, and requires the export of the value to be refused with an
// error, without running the code's replacement (which throws "ran").
func requireMissRefused(t *testing.T, reaches func(string) bool, code string) {
	t.Helper()
	e, err := NewInProcess(Config{Concurrency: 1})
	require.NoError(t, err)
	defer e.Close()
	require.False(t, reaches(code), "the case this test is about")
	_, err = e.Run(context.Background(), code)
	require.Error(t, err)
	require.NotContains(t, err.Error(), "ran")
	require.Contains(t, err.Error(), "could not be converted to JSON")
}
