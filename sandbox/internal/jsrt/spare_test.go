package jsrt

import (
	"context"
	"runtime"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// waitSpare waits until e has a runtime set up ahead; the deadline is a
// hang guard only.
func waitSpare(t *testing.T, e *InProcess) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for len(e.spares.ready) == 0 {
		require.True(t, time.Now().Before(deadline), "no spare runtime was set up")
		time.Sleep(time.Millisecond)
	}
}

// TestSpareRuntimesShareNoState runs code that changes the global state in
// every way a snippet can, then, on the spare set up meanwhile, code that
// looks for any trace of it.
func TestSpareRuntimesShareNoState(t *testing.T) {
	e, err := NewInProcess(Config{Concurrency: 1})
	require.NoError(t, err)
	defer e.Close()
	const probe = `[typeof leaked, typeof leakedVar, typeof leakedFn, ({}).polluted, [1].push(2), Object.isFrozen(Object.prototype),
		Object.isFrozen(Array.prototype), Math.max(1, 2), JSON.stringify({a: 1}), typeof console.log, String(Symbol.iterator), [3, 1, 2].sort().join()]`
	const clean = `["undefined","undefined","undefined",null,2,false,false,2,"{\"a\":1}","function","Symbol(Symbol.iterator)","1,2,3"]`
	cases := []struct{ name, code string }{
		{"globals", `globalThis.leaked = 1; var leakedVar = 2; function leakedFn() {} 1`},
		{"prototype pollution", `Object.prototype.polluted = 1; Array.prototype.push = function () { return -1 }; 1`},
		{"frozen built-ins", `Object.freeze(Object.prototype); Object.freeze(Array.prototype); 1`},
		{"replaced built-ins", `Math.max = () => -1; JSON.stringify = () => "x"; Array.prototype.sort = function () { return this }; 1`},
		{"console removed", `Object.defineProperty(globalThis, "console", {value: null}); 1`},
		{"symbol description", `Object.defineProperty(Symbol.prototype, "description", {get() { return "evil" }}); 1`},
	}
	ctx := context.Background()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			waitSpare(t, e)
			_, err := e.Run(ctx, c.code)
			require.NoError(t, err)
			waitSpare(t, e)
			taken := e.spares.takenCount()
			res, err := e.Run(ctx, probe)
			require.NoError(t, err)
			require.Equal(t, taken+1, e.spares.takenCount(), "the probe must run on a spare set up ahead")
			require.JSONEq(t, clean, string(res.Value))
		})
	}
}

// TestSpareRuntimeGetsTheRunsSettings: a spare carries the executor's fixed
// time and restarts its seeded random sequence, as a runtime set up at the
// run's start does.
func TestSpareRuntimeGetsTheRunsSettings(t *testing.T) {
	fixed := time.Date(2024, 2, 29, 12, 0, 0, 0, time.UTC)
	seed := uint64(7)
	e, err := NewInProcess(Config{Concurrency: 1, FixedTime: &fixed, RandSeed: &seed})
	require.NoError(t, err)
	defer e.Close()
	var first string
	for i := range 3 {
		waitSpare(t, e)
		res, err := e.Run(context.Background(), `[new Date().toISOString(), Math.random()]`)
		require.NoError(t, err)
		if i == 0 {
			first = string(res.Value)
			require.Contains(t, first, `"2024-02-29T12:00:00.000Z"`)
		}
		require.Equal(t, first, string(res.Value), "run %d: each run restarts the seeded sequence", i)
	}
	require.GreaterOrEqual(t, e.spares.takenCount(), int64(3))
}

// TestCloseDropsSpares: after Close no spare is kept or set up.
func TestCloseDropsSpares(t *testing.T) {
	e, err := NewInProcess(Config{})
	require.NoError(t, err)
	waitSpare(t, e)
	require.NoError(t, e.Close())
	require.Zero(t, len(e.spares.ready))
	e.spares.prepare(e.cfg)
	require.Zero(t, len(e.spares.ready), "a closed executor sets up no spare")
	_, err = e.Run(context.Background(), `1`)
	require.ErrorIs(t, err, ErrClosed)
}

// TestReplyComesBeforeTheNextSetup: on one P (as in a worker, which runs
// with GOMAXPROCS=1) a run's caller gets its reply before the goroutine
// that ran it sets up the next spare, not after. Without the yield the
// setup (hundreds of microseconds) ran first, every time.
func TestReplyComesBeforeTheNextSetup(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	e, err := NewInProcess(Config{Concurrency: 1})
	require.NoError(t, err)
	defer e.Close()
	const runs = 20
	first := 0 // replies that came before the next spare was set up
	for range runs {
		waitSpare(t, e)
		res, err := e.Run(context.Background(), `function f(n){return n<=1?1:n*f(n-1)} f(15)`)
		require.NoError(t, err)
		require.Equal(t, "1307674368000", string(res.Value))
		if len(e.spares.ready) == 0 {
			first++
		}
	}
	// A goroutine can still be preempted between the yield and the
	// caller's check; most replies must come first.
	require.GreaterOrEqual(t, first, runs/2, "the caller got its reply after the next runtime's setup")
}
