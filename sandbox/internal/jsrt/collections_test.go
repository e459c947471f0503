package jsrt

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestReachesCollections(t *testing.T) {
	cases := []struct {
		code string
		want bool
	}{
		{`function f(n){return n<=1?1:n*f(n-1)} f(15)`, false},
		{`Object.groupBy([1, 2], x => x % 2)`, false},
		{`new Map()`, true},
		{`new Set([1])`, true},
		{`WeakMap`, true}, // a false positive: the cost of an install, no more
		{`globalThis["Ma" + "p"]`, true},
		{`(function () { return this })()["Se" + "t"]`, true},
		{`Object.defineProperty(Object.prototype, "g", {get: Object.prototype.valueOf}); g["Ma" + "p"]`, true},
		{`__proto__ = Object.create(null, {g: {get: Object.prototype.valueOf}}); g["Ma" + "p"]`, true},
		{`\u004Dap`, true},
		{`M\u0061p`, true},
	}
	for _, c := range cases {
		t.Run(c.code, func(t *testing.T) {
			require.Equal(t, c.want, reachesCollections(c.code))
		})
	}
}

// TestCollectionsWhereverReached: Map and Set, their polyfills and the
// exporter's view of them work however the code reaches them, and their
// built-ins are taken before the code runs, so that replacing them does
// not change what the host reads.
func TestCollectionsWhereverReached(t *testing.T) {
	e, err := NewInProcess(Config{Concurrency: 1})
	require.NoError(t, err)
	defer e.Close()
	cases := []struct{ name, code, want string }{
		{"named", `new Map([["a", 1]])`, `{"$map":[["a",1]]}`},
		{"through globalThis", `new globalThis["Ma" + "p"]([["a", 1]])`, `{"$map":[["a",1]]}`},
		{"through a sloppy function's this", `const S = (function () { return this })()["Se" + "t"]; [...new S([1, 2]).union(new S([3]))]`, `[1,2,3]`},
		{"through a getter on Object.prototype", `Object.defineProperty(Object.prototype, "g", {get: Object.prototype.valueOf}); new g["Ma" + "p"]([["a", 1]])`, `{"$map":[["a",1]]}`},
		{"through the global object's new prototype", `__proto__ = Object.create(null, {g: {get: Object.prototype.valueOf}}); [...new g["Se" + "t"]([1]).union(new g["Se" + "t"]([2]))]`, `[1,2]`},
		{"through an escaped name", `new \u0053et([1]).isSubsetOf(new Set([1, 2]))`, `true`},
		{"Map.groupBy", `[...Map.groupBy([1, 2, 3], x => x % 2).keys()]`, `[1,0]`},
		{"Map.prototype.forEach replaced", `Map.prototype.forEach = function () { throw new Error("ran") }; new Map([["a", 1]])`, `{"$map":[["a",1]]}`},
		{"Set.prototype.forEach replaced", `Set.prototype.forEach = function (f) { f("evil") }; new Set([1, 2])`, `{"$set":[1,2]}`},
		{"no collections: the other polyfills", `[Object.groupBy([1, 2, 3], x => x % 2 ? "odd" : "even"), "ab".isWellFormed(), Error.isError(new TypeError())]`, `[{"odd":[1,3],"even":[2]},true,true]`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res, err := e.Run(context.Background(), c.code)
			require.NoError(t, err)
			require.JSONEq(t, c.want, string(res.Value))
		})
	}
}

// TestCollectionsOnlyWhenReached: a runtime whose code cannot reach Map or
// Set never creates them.
func TestCollectionsOnlyWhenReached(t *testing.T) {
	cfg, err := Config{}.WithDefaults()
	require.NoError(t, err)
	for _, c := range []struct {
		code string
		want bool
	}{{`[1, 2].map(x => x * 2)`, false}, {`new Set([1]).size`, true}} {
		j := newJob(cfg, c.code, DefaultLimits().Timeout)
		_, err := j.execute()
		require.NoError(t, err)
		require.Equal(t, c.want, j.collections, c.code)
	}
}

// TestCollectionsMissIsRefused: code can reach Map without its text
// showing it (reachesGlobal is a heuristic); the host then refuses to
// export the Map, with an error, rather than read it through the code's
// replacements.
func TestCollectionsMissIsRefused(t *testing.T) {
	e, err := NewInProcess(Config{Concurrency: 1})
	require.NoError(t, err)
	defer e.Close()
	const code = `const O = ({})["const" + "ructor"];
O["def" + "ineProperty"](O.prototype, "g", {get: O.prototype.valueOf});
const M = g["Ma" + "p"];
M.prototype.forEach = function () { throw new Error("ran") };
new M([["a", 1]])`
	require.False(t, reachesCollections(code), "the case this test is about")
	_, err = e.Run(context.Background(), code)
	require.Error(t, err)
	require.NotContains(t, err.Error(), "ran")
	require.Contains(t, err.Error(), "could not be converted to JSON")
}
