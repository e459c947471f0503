package sandbox

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// conformanceCase is one input both executors must treat alike.
type conformanceCase struct {
	name string
	code string
	// short runs the case with a short time limit (it loops).
	short bool
}

func conformanceCases() []conformanceCase {
	cases := []conformanceCase{
		{name: "a value", code: `({a: [1, 'x', null], b: 2n})`},
		{name: "syntax error", code: `1 +`},
		{name: "invalid UTF-8", code: "const s = '\xff'; s"},
		{name: "invalid UTF-8 in a comment", code: "// \xc3\n1"},
		{name: "code too large", code: strings.Repeat(" ", DefaultSourceBytes) + "1"},
		{name: "nesting too deep", code: strings.Repeat("[", DefaultNesting+1) + strings.Repeat("]", DefaultNesting+1)},
		{name: "top-level await, U+2028 before a throwing last statement", code: "await 1\u2028throw new Error('kept')"},
		{name: "top-level await, U+2029 before the last expression", code: "await 1;\u2029 42"},
		{name: "top-level await, NBSP before the last expression", code: "await 1;\u00a0 42"},
		{name: "thrown Error", code: `throw new TypeError('t')`},
		{name: "thrown value", code: `throw {a: 1}`},
		{name: "stack overflow", code: `function f() { return f() + 1 } f()`},
		{name: "result too large", code: `'x'.repeat(1e6)`},
		{name: "cyclic result", code: `const a = {}; a.a = a; a`},
		{name: "unsettled Promise", code: `await new Promise(() => {})`},
		{name: "rejected Promise", code: `await Promise.reject(new Error('r'))`},
		{name: "infinite loop", code: `for (;;) {}`, short: true},
	}
	// TestBoundary and TestNativeRecursion hold both executors to the same
	// expectations for their cases too.
	return cases
}

// TestExecutorsConform runs every case on both executors and requires the
// same outcome: the same error kind, or the same value.
func TestExecutorsConform(t *testing.T) {
	roomy := Limits{Timeout: time.Minute}
	short := Limits{Timeout: 300 * time.Millisecond, Grace: time.Second}
	ip, err := NewInProcess(InProcessConfig{Limits: roomy})
	require.NoError(t, err)
	ipShort, err := NewInProcess(InProcessConfig{Limits: short})
	require.NoError(t, err)
	iso, err := NewIsolated(IsolatedConfig{Limits: roomy, Concurrency: 2})
	require.NoError(t, err)
	isoShort, err := NewIsolated(IsolatedConfig{Limits: short, Concurrency: 1})
	require.NoError(t, err)
	t.Cleanup(func() {
		require.NoError(t, iso.Close())
		require.NoError(t, isoShort.Close())
	})
	outcome := func(e Executor, code string) string {
		res, err := e.Run(context.Background(), code)
		if err != nil {
			var se *Error
			require.True(t, errors.As(err, &se), "want a *sandbox.Error, got %T: %v", err, err)
			return "error " + string(se.Kind)
		}
		return "value " + string(res.Value)
	}
	for _, tc := range conformanceCases() {
		t.Run(tc.name, func(t *testing.T) {
			a, b := Executor(ip), Executor(iso)
			if tc.short {
				a, b = ipShort, isoShort
			}
			require.Equal(t, outcome(a, tc.code), outcome(b, tc.code), "in process (left) and isolated (right) must agree")
		})
	}
}

// TestAwaitWrapperLineTerminators checks that the top-level-await wrapper
// returns the last statement after any JavaScript line terminator or space,
// rather than dropping it.
func TestAwaitWrapperLineTerminators(t *testing.T) {
	e, err := NewInProcess(InProcessConfig{})
	require.NoError(t, err)
	for _, sep := range []string{"\n", "\r\n", "\u2028", "\u2029", "\u00a0", "\ufeff", "\u3000", "\v", "\f", "/* c */\u2028"} {
		t.Run(fmt.Sprintf("%+q", sep), func(t *testing.T) {
			res, err := e.Run(context.Background(), "await 1;"+sep+"42")
			require.NoError(t, err)
			require.JSONEq(t, "42", string(res.Value))
			_, err = e.Run(context.Background(), "await 1"+sep+";throw new Error('kept')")
			require.ErrorIs(t, err, ErrException)
			require.Contains(t, err.Error(), "kept")
		})
	}
	_, err = e.Run(context.Background(), "await 1\u2028throw new Error('kept')")
	require.ErrorIs(t, err, ErrException)
	require.Contains(t, err.Error(), "kept")
}
