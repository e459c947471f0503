package sandbox

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// FuzzRun feeds arbitrary code to the isolated executor, seeded with the
// hostile-code table: whatever the code, the host survives, the run ends
// within its limit plus a margin with a result or a *sandbox.Error, and the
// next run works. CI runs it for a fixed time:
//
//	go test ./sandbox -run '^$' -fuzz '^FuzzRun$' -fuzztime 20s
func FuzzRun(f *testing.F) {
	for _, tc := range hostileCases() {
		if len(tc.code) <= 4<<10 {
			f.Add(tc.code)
		}
	}
	for _, s := range []string{
		`1+1`, `const v = await Promise.resolve([1, {a: 2n}]); v`, `new Map([[{}, new Set([NaN])]])`,
		"`${1}${`${2}`}`", `/(?<y>\d{4})/.exec("in 2024").groups`, `class A { #x = 1; get x() { return this.#x } }; new A().x`,
	} {
		f.Add(s)
	}
	lim := Limits{Timeout: 200 * time.Millisecond, Grace: 200 * time.Millisecond, Memory: 64 << 20, SourceBytes: 16 << 10}
	if raceEnabled {
		// The seeds run as tests under -race, where a worker runs many
		// times slower and, with packages tested in parallel, may wait
		// for a CPU longer than 200 ms: the check after a timeout, 1+1 on
		// the next worker, must not time out itself.
		lim.Timeout, lim.Grace = time.Second, time.Second
	}
	e, err := NewIsolated(IsolatedConfig{Limits: lim, Concurrency: 1})
	require.NoError(f, err)
	f.Cleanup(func() { _ = e.Close() })
	bound := lim.Timeout + lim.Grace + killMargin + 3*time.Second
	f.Fuzz(func(t *testing.T, code string) {
		start := time.Now()
		res, err := e.Run(context.Background(), code)
		require.Less(t, time.Since(start), bound)
		require.NotNil(t, res)
		if err != nil {
			var se *Error
			require.ErrorAs(t, err, &se)
			require.NotEmpty(t, se.Message)
			require.NotEqual(t, KindInternal, se.Kind, "an internal error is a sandbox bug: %v", err)
			if se.Kind != KindWorkerCrashed && se.Kind != KindTimeout {
				return
			}
		} else {
			require.True(t, json.Valid(res.Value), "%q", res.Value)
			return
		}
		next, err := e.Run(context.Background(), `1+1`)
		require.NoError(t, err)
		require.Equal(t, "2", string(next.Value))
	})
}

// FuzzCompile checks that admission and compilation of arbitrary source in
// this process never panic, never take the process down and never hang: the
// prescan must reject whatever would recurse deep in goja's parser or
// compiler, and the AST pass must leave goja nothing to fold and no huge
// regexp to compile (testdata/fuzz/FuzzCompile holds the input CI found).
func FuzzCompile(f *testing.F) {
	for _, tc := range hostileCases() {
		if len(tc.code) <= 4<<10 {
			f.Add(tc.code)
		}
	}
	lim := DefaultLimits()
	f.Fuzz(func(t *testing.T, code string) {
		err := Check(code, lim)
		if err != nil {
			var se *Error
			require.ErrorAs(t, err, &se)
		}
	})
}
