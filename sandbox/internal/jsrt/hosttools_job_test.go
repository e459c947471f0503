package jsrt

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestToolResultRefusedWithPlainText: a call whose JSON result cannot
// become a JS value rejects with a RangeError of kind "limit" whose
// message says why in plain text.
func TestToolResultRefusedWithPlainText(t *testing.T) {
	deep := strings.Repeat("[", DefaultNesting+1) + strings.Repeat("]", DefaultNesting+1)
	for _, tc := range []struct {
		name, result, want string
	}{
		{"nested too deep", deep, "tools.deep: the result is nested more than 256 levels deep, the sandbox's limit"},
		{"nested too deep in an object", `{"a":` + deep + `}`, "tools.deep: the result is nested more than 256 levels deep, the sandbox's limit"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			box, err := NewToolbox([]HostTool{{Name: "deep", Call: func(context.Context, json.RawMessage) (json.RawMessage, error) {
				return json.RawMessage(tc.result), nil
			}}}, CallLimits{}, nil)
			require.NoError(t, err)
			e := newTestInProcess(t, Config{})
			res, err := e.RunWithTools(t.Context(), `
let r;
try { await tools.deep() } catch (e) { r = [e.name, e.kind, e.message] }
r`, box)
			require.NoError(t, err)
			var got []string
			require.NoError(t, json.Unmarshal(res.Value, &got))
			require.Equal(t, []string{"RangeError", "limit", tc.want}, got)
		})
	}
}

// A run stopped by its time limit while it awaits tool calls says so, and
// names them: the limit covers the calls, so the advice is about them. A
// run that spins past the limit with a call pending gets the plain
// timeout.
func TestTimeoutWhileAwaitingToolsNamesThem(t *testing.T) {
	slow := func(ctx context.Context, _ json.RawMessage) (json.RawMessage, error) {
		<-ctx.Done() // until the run's time limit cancels it
		return nil, ctx.Err()
	}
	quick := func(context.Context, json.RawMessage) (json.RawMessage, error) { return json.RawMessage(`1`), nil }
	box, err := NewToolbox([]HostTool{{Name: "slow", Call: slow}, {Name: "quick", Call: quick}}, CallLimits{}, nil)
	require.NoError(t, err)
	e := newTestInProcess(t, Config{Limits: Limits{Timeout: 200 * time.Millisecond}})
	for _, tc := range []struct {
		name, code string
		want       []string
		not        string
	}{
		{"one call", `await tools.quick(); await tools.slow()`, []string{"while it waited for tool calls (tools.slow)", "make fewer or quicker calls"}, "join('')"},
		{"several calls", `await Promise.all([tools.slow(), tools.slow(), tools.quick()])`, []string{"(tools.slow)"}, "tools.quick"},
		{"spinning with a call pending", `tools.slow(); for (;;) {}`, []string{"join('')"}, "waited for tool calls"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := e.RunWithTools(t.Context(), tc.code, box)
			require.ErrorIs(t, err, ErrTimeout)
			for _, w := range tc.want {
				require.ErrorContains(t, err, w)
			}
			require.NotContains(t, err.Error(), tc.not)
		})
	}
}
