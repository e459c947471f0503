package jsrt

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestReaches: what the heuristics that decide the built-ins made on
// demand see in code's text.
func TestReaches(t *testing.T) {
	const fact = `function f(n){return n<=1?1:n*f(n-1)} f(15)`
	cases := []struct {
		name    string
		reaches func(string) bool
		code    string
		want    bool
	}{
		{"collections", reachesCollections, fact, false},
		{"collections", reachesCollections, `Object.groupBy([1, 2], x => x % 2)`, false},
		{"collections", reachesCollections, `new Map()`, true},
		{"collections", reachesCollections, `new Set([1])`, true},
		{"collections", reachesCollections, `WeakMap`, true}, // a false positive: the cost of an install, no more
		{"collections", reachesCollections, `globalThis["Ma" + "p"]`, true},
		{"collections", reachesCollections, `(function () { return this })()["Se" + "t"]`, true},
		{"collections", reachesCollections, `Object.defineProperty(Object.prototype, "g", {get: Object.prototype.valueOf}); g["Ma" + "p"]`, true},
		{"collections", reachesCollections, `__proto__ = Object.create(null, {g: {get: Object.prototype.valueOf}}); g["Ma" + "p"]`, true},
		{"collections", reachesCollections, `\u004Dap`, true},
		{"collections", reachesCollections, `M\u0061p`, true},
		{"polyfills", reachesPolyfills, fact, false},
		{"polyfills", reachesPolyfills, `Object.entries({a: 1})`, false},
		{"polyfills", reachesPolyfills, `Object.groupBy([1], x => x)`, true},
		{"polyfills", reachesPolyfills, `"a".toWellFormed()`, true},
		{"polyfills", reachesPolyfills, `Error.isError(e)`, true},
		{"polyfills", reachesPolyfills, `globalThis.Object["group" + "By"]`, true},
		{"regexp", reachesRegExp, fact, false},
		{"regexp", reachesRegExp, `"a-b".split("-").join("+")`, false},
		{"regexp", reachesRegExp, `"a-b".replace("-", "$<x>")`, false}, // a string pattern has no groups
		{"regexp", reachesRegExp, `new RegExp("a")`, true},
		{"regexp", reachesRegExp, `"ab".match("(?<x>a)")`, true},
		{"regexp", reachesRegExp, `[..."ab".matchAll("a")]`, true},
		{"regexp", reachesRegExp, `globalThis["Reg" + "Exp"]`, true},
		{"regexp", reachesRegExp, `\u0052egExp`, true},
	}
	for _, c := range cases {
		t.Run(c.name+" "+c.code, func(t *testing.T) {
			require.Equal(t, c.want, c.reaches(c.code))
		})
	}
}

// TestCollectionsWhereverReached: Map and Set, their polyfills and the
// exporter's view of them work however the code reaches them, and their
// built-ins are taken before the code runs, so that replacing them does
// not change what the host reads.
func TestCollectionsWhereverReached(t *testing.T) {
	requireValues(t, newTestInProcess(t, Config{}), []valueCase{
		{`new Map([["a", 1]])`, `{"$map":[["a",1]]}`},
		{`new globalThis["Ma" + "p"]([["a", 1]])`, `{"$map":[["a",1]]}`},
		{`const S = (function () { return this })()["Se" + "t"]; [...new S([1, 2]).union(new S([3]))]`, `[1,2,3]`},
		{`Object.defineProperty(Object.prototype, "g", {get: Object.prototype.valueOf}); new g["Ma" + "p"]([["a", 1]])`, `{"$map":[["a",1]]}`},
		{`__proto__ = Object.create(null, {g: {get: Object.prototype.valueOf}}); [...new g["Se" + "t"]([1]).union(new g["Se" + "t"]([2]))]`, `[1,2]`},
		{`new \u0053et([1]).isSubsetOf(new Set([1, 2]))`, `true`},
		{`[...Map.groupBy([1, 2, 3], x => x % 2).keys()]`, `[1,0]`},
		{`Map.prototype.forEach = function () { throw new Error("ran") }; new Map([["a", 1]])`, `{"$map":[["a",1]]}`},
		{`Set.prototype.forEach = function (f) { f("evil") }; new Set([1, 2])`, `{"$set":[1,2]}`},
		{`[Object.groupBy([1, 2, 3], x => x % 2 ? "odd" : "even"), "ab".isWellFormed(), Error.isError(new TypeError())]`, `[{"odd":[1,3],"even":[2]},true,true]`},
	})
}

// TestOnlyWhenReached: a runtime whose code cannot reach Map and Set, or
// RegExp, never creates them or takes their built-ins, and one whose code
// cannot reach the other polyfills does not define them.
func TestOnlyWhenReached(t *testing.T) {
	cfg, err := Config{}.WithDefaults()
	require.NoError(t, err)
	for _, c := range []struct {
		code                            string
		collections, regexps, polyfills bool
	}{
		{`[1, 2].map(x => x * 2)`, false, false, false},
		{`new Set([1]).size`, true, false, false},
		{`"a/b".split("/").length / 2`, false, false, false},
		{`/a/.test("a")`, false, true, false},
		{`"a".match("a")[0]`, false, true, false},
		{`Object.groupBy([1], x => x)[1].length`, false, false, true},
	} {
		j := newJob(cfg, c.code, DefaultLimits().Timeout)
		_, err := j.execute()
		require.NoError(t, err)
		require.Equal(t, c.collections, j.collections, c.code)
		require.Equal(t, c.regexps, j.regexps, c.code)
		require.Equal(t, c.regexps, j.in.regexpSource != nil, c.code)
		require.Equal(t, c.polyfills, j.polyfills, c.code)
	}
}

// TestCollectionsMissIsRefused: code can reach Map without its text
// showing it (reachesGlobal is a heuristic); the host then refuses to
// export the Map, with an error, rather than read it through the code's
// replacements.
func TestCollectionsMissIsRefused(t *testing.T) {
	requireMissRefused(t, reachesCollections, `const O = ({})["const" + "ructor"];
O["def" + "ineProperty"](O.prototype, "g", {get: O.prototype.valueOf});
const M = g["Ma" + "p"];
M.prototype.forEach = function () { throw new Error("ran") };
new M([["a", 1]])`)
}
