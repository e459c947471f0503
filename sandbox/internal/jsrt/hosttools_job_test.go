package jsrt

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

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
