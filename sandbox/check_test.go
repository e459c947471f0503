package sandbox_test

import (
	"strings"
	"testing"

	"github.com/loomwork/loom/sandbox"
	"github.com/stretchr/testify/require"
)

// TestCheck: code is admitted and compiled, never run, and refused with
// the error a run would give before it starts.
func TestCheck(t *testing.T) {
	for _, tc := range []struct {
		name string
		code string
		lim  sandbox.Limits
		kind sandbox.Kind // empty: admitted
		line int
	}{
		{name: "an expression", code: "state.score > 0.5 ? 'publish' : 'revise'"},
		{name: "top-level await", code: "const r = await Promise.resolve(2); r * 21"},
		{name: "an endless loop is not run", code: "while (true) {}"},
		{name: "a throw is not run", code: "throw new Error('boom')"},
		{name: "a syntax error", code: "const a = 1;\nconst b = (a +;\n", kind: sandbox.KindSyntax, line: 2},
		{name: "too large", code: strings.Repeat("1;", 600), lim: sandbox.Limits{SourceBytes: 1000}, kind: sandbox.KindCodeTooLarge},
		{name: "nested too deep", code: strings.Repeat("[", 5000) + strings.Repeat("]", 5000), kind: sandbox.KindNestingTooDeep},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := sandbox.Check(tc.code, tc.lim)
			if tc.kind == "" {
				require.NoError(t, err)
				return
			}
			var se *sandbox.Error
			require.ErrorAs(t, err, &se)
			require.Equal(t, tc.kind, se.Kind, se.Message)
			if tc.line > 0 {
				require.Equal(t, tc.line, se.Line)
			}
		})
	}
	t.Run("negative limits", func(t *testing.T) {
		err := sandbox.Check("1", sandbox.Limits{SourceBytes: -1})
		require.ErrorContains(t, err, "SourceBytes")
	})
}
