package sandbox

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestRunsShareNoState: on both executors, whose runtimes are set up ahead
// of the runs, nothing one run does to the global state is seen by the
// next run on the same executor (for the isolated one, the same worker).
func TestRunsShareNoState(t *testing.T) {
	const probe = `[typeof leaked, typeof leakedVar, ({}).polluted, [1].push(2), Object.isFrozen(Object.prototype),
		Math.max(1, 2), JSON.stringify({a: 1}), typeof console.log, [3, 1, 2].sort().join()]`
	const clean = `["undefined","undefined",null,2,false,2,"{\"a\":1}","function","1,2,3"]`
	mutations := []struct{ name, code string }{
		{"globals", `globalThis.leaked = 1; var leakedVar = 2; 1`},
		{"prototype pollution", `Object.prototype.polluted = 1; Array.prototype.push = function () { return -1 }; 1`},
		{"frozen built-ins", `Object.freeze(Object.prototype); Object.freeze(Array.prototype); 1`},
		{"replaced built-ins", `Math.max = () => -1; JSON.stringify = () => "x"; Array.prototype.sort = function () { return this }; 1`},
		{"console removed", `Object.defineProperty(globalThis, "console", {value: null}); 1`},
	}
	lim := Limits{Timeout: 20 * time.Second}
	inproc, err := NewInProcess(InProcessConfig{Limits: lim, Concurrency: 1})
	require.NoError(t, err)
	defer inproc.Close()
	iso, err := NewIsolated(IsolatedConfig{Limits: lim, Concurrency: 1})
	require.NoError(t, err)
	defer iso.Close()
	ctx := context.Background()
	for _, ex := range []struct {
		name string
		e    Executor
	}{{"in process", inproc}, {"isolated", iso}} {
		for _, m := range mutations {
			t.Run(ex.name+"/"+m.name, func(t *testing.T) {
				_, err := ex.e.Run(ctx, m.code)
				require.NoError(t, err)
				for range 2 { // the runtime set up during the last run, then one set up at the run's start or ahead
					res, err := ex.e.Run(ctx, probe)
					require.NoError(t, err)
					require.JSONEq(t, clean, string(res.Value))
				}
			})
		}
	}
}
