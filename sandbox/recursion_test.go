package sandbox

import (
	"context"
	"os"
	"os/exec"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// nativeRecursionCases are programs in which goja's built-ins call each
// other in Go, or a Proxy chain recurses in Go. Unpatched goja dies of a
// fatal Go stack overflow on each; the sandbox must report a stack overflow.
var nativeRecursionCases = []struct{ name, code string }{
	{"toString is toLocaleString", `const o = {}; o.toString = Object.prototype.toLocaleString; String(o)`},
	{"toString is toLocaleString, via +", `const o = {}; o.toLocaleString = Object.prototype.toLocaleString; o.toString = o.toLocaleString; o + ''`},
	{"Error.prototype.toString through a name getter", `const e = new Error(); Object.defineProperty(e, 'name', {get: Error.prototype.toString.bind(e)}); String(e)`},
	{"Date.prototype.toJSON as toISOString", `const d = new Date(0); d.toISOString = Date.prototype.toJSON; d.toJSON()`},
	{"RegExp.prototype.toString through a source getter", `const r = /a/; Object.defineProperty(r, 'source', {get: RegExp.prototype.toString.bind(r)}); String(r)`},
	{"Object.prototype.toString through a toStringTag getter", `const o = {}; Object.defineProperty(o, Symbol.toStringTag, {get: Object.prototype.toString.bind(o)}); String(o)`},
	{"Reflect.get as its own getter", `const o = {}; Object.defineProperty(o, 'x', {get: Reflect.get.bind(null, o, 'x')}); o.x`},
	{"sort of elements whose toString sorts", `const a = [{}, {}]; a[0].toString = a[1].toString = Array.prototype.sort.bind(a); a.sort()`},
	{"JSON.stringify from toJSON", `const o = {}; o.toJSON = JSON.stringify.bind(null, o); JSON.stringify(o)`},
	{"Proxy chain through prototypes", `let p = {}; for (let i = 0; i < 3e4; i++) p = new Proxy(Object.create(p), {}); p.x`},
	{"Proxy chain, Array.isArray", `let p = []; for (let i = 0; i < 3e4; i++) p = new Proxy(p, {}); Array.isArray(p)`},
	{"bound chain, instanceof", `let f = function () {}; for (let i = 0; i < 1000; i++) f = f.bind(null); ({}) instanceof f`},
}

// TestNativeRecursion runs the cases in a child test process, since a
// failure kills the process, and requires a stack overflow from both
// executors.
func TestNativeRecursion(t *testing.T) {
	if os.Getenv("LOOM_SANDBOX_TEST_RECURSION") != "" {
		// A lower call stack limit keeps the chains short (a bound function's
		// name grows with the chain).
		lim := Limits{Timeout: 20 * time.Second, CallStack: 500}
		ip, err := NewInProcess(WithLimits(lim))
		require.NoError(t, err)
		iso, err := NewIsolated(WithLimits(lim), WithConcurrency(1))
		require.NoError(t, err)
		defer iso.Close()
		for _, tc := range nativeRecursionCases {
			for name, e := range map[string]Executor{inProcess: ip, isolated: iso} {
				t.Run(name+"/"+tc.name, func(t *testing.T) {
					_, err := e.Run(context.Background(), tc.code)
					require.ErrorIs(t, err, ErrStackOverflow)
					res, err := e.Run(context.Background(), "1+1")
					require.NoError(t, err)
					require.JSONEq(t, "2", string(res.Value))
				})
			}
		}
		return
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestNativeRecursion$", "-test.count=1", "-test.v")
	cmd.Env = append(os.Environ(), "LOOM_SANDBOX_TEST_RECURSION=1")
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "the child process must survive every case:\n%s", out)
	require.Contains(t, string(out), "PASS")
}
