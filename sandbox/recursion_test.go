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
// other in Go, or a Proxy or bound-function chain recurses in Go. goja
// counts only the calls its VM makes against the call stack limit, so each
// ends in Go's fatal stack overflow, which no recover catches: it kills the
// process that runs it. The isolated executor must report a stack overflow
// (and a replaced worker) and run the next code cleanly. In process they
// are not run: that executor is for trusted code, and any of these kills
// the host.
var nativeRecursionCases = []struct {
	name, code string
	mayFinish  bool // goja walks some chains in a loop: a value is fine too
}{
	{"toString is toLocaleString", `const o = {}; o.toString = Object.prototype.toLocaleString; String(o)`, false},
	{"toString is toLocaleString, via +", `const o = {}; o.toLocaleString = Object.prototype.toLocaleString; o.toString = o.toLocaleString; o + ''`, false},
	{"Error.prototype.toString through a name getter", `const e = new Error(); Object.defineProperty(e, 'name', {get: Error.prototype.toString.bind(e)}); String(e)`, false},
	{"Date.prototype.toJSON as toISOString", `const d = new Date(0); d.toISOString = Date.prototype.toJSON; d.toJSON()`, false},
	{"RegExp.prototype.toString through a source getter", `const r = /a/; Object.defineProperty(r, 'source', {get: RegExp.prototype.toString.bind(r)}); String(r)`, false},
	{"Object.prototype.toString through a toStringTag getter", `const o = {}; Object.defineProperty(o, Symbol.toStringTag, {get: Object.prototype.toString.bind(o)}); String(o)`, false},
	{"Reflect.get as its own getter", `const o = {}; Object.defineProperty(o, 'x', {get: Reflect.get.bind(null, o, 'x')}); o.x`, false},
	{"JSON.stringify from toJSON", `const o = {}; o.toJSON = JSON.stringify.bind(null, o); JSON.stringify(o)`, false},
	{"Proxy chain through prototypes", `let p = {}; for (let i = 0; i < 3e5; i++) p = new Proxy(Object.create(p), {}); p.x`, true},
	{"Proxy chain, Array.isArray", `let p = []; for (let i = 0; i < 3e5; i++) p = new Proxy(p, {}); Array.isArray(p)`, true},
	{"bound chain, instanceof", `let f = function () {}; for (let i = 0; i < 1e5; i++) { f = f.bind(null); Object.defineProperty(f, 'name', {value: ''}) } ({}) instanceof f`, true},
	{"bound chain, call", `let f = function () { return 1 }; for (let i = 0; i < 1e5; i++) { f = f.bind(null); Object.defineProperty(f, 'name', {value: ''}) } f()`, true},
}

// TestNativeRecursion runs the cases on the isolated executor in a child
// test process (a mistake would kill the test binary): each ends as a
// stack overflow whose message carries no Go runtime text, the worker is
// replaced, and the next run is clean.
func TestNativeRecursion(t *testing.T) {
	if os.Getenv("LOOM_SANDBOX_TEST_RECURSION") != "" {
		// The budget is a hang guard: building a 3e5-long Proxy chain under
		// -race on a loaded machine takes tens of seconds.
		iso, err := NewIsolated(IsolatedConfig{Limits: Limits{Timeout: 2 * time.Minute}, Concurrency: 1})
		require.NoError(t, err)
		defer iso.Close()
		for _, tc := range nativeRecursionCases {
			t.Run(isolated+"/"+tc.name, func(t *testing.T) {
				requireNativeOverflow(t, iso, tc.code, tc.mayFinish)
			})
		}
		t.Run(inProcess, func(t *testing.T) {
			t.Skip("native recursion kills the process that runs it: the in-process executor is for trusted code only")
		})
		return
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestNativeRecursion$", "-test.count=1", "-test.v")
	cmd.Env = append(os.Environ(), "LOOM_SANDBOX_TEST_RECURSION=1")
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "the child process must survive every case:\n%s", out)
	require.Contains(t, string(out), "PASS")
}

// requireNativeOverflow runs code that overflows the Go stack of a worker:
// the error is a stack overflow and a replaced worker, its message has no
// Go runtime text, and the next run succeeds.
func requireNativeOverflow(t *testing.T, e Executor, code string, mayFinish bool) {
	t.Helper()
	_, err := e.Run(context.Background(), code)
	if err == nil && mayFinish {
		return
	}
	require.ErrorIs(t, err, ErrStackOverflow)
	require.ErrorIs(t, err, ErrWorkerCrashed, "the worker died and was replaced")
	msg := err.Error()
	require.Contains(t, msg, "recursed too deeply")
	for _, s := range []string{"runtime:", "goroutine", "fatal error", "stack exceeds", ".go:"} {
		require.NotContains(t, msg, s)
	}
	res, err := e.Run(context.Background(), "1+1")
	require.NoError(t, err)
	require.JSONEq(t, "2", string(res.Value))
}
