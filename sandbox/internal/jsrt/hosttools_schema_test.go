package jsrt

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"
)

// A tool's input schema goes through the toolbox's compiler, and a call
// whose argument the compiled check refuses never reaches the tool; a
// schema without a compiler is refused when the toolbox is made.
func TestToolboxChecksArgumentsWithItsCompiler(t *testing.T) {
	var compiled []string
	compile := func(schema []byte) (ArgCheck, error) {
		compiled = append(compiled, string(schema))
		return func(args []byte) string {
			if string(args) == `{"ok":true}` {
				return ""
			}
			return "at /ok: must be true"
		}, nil
	}
	called := 0
	tools := []HostTool{{Name: "t", InputSchema: json.RawMessage(`{"type":"object"}`), Call: func(context.Context, json.RawMessage) (json.RawMessage, error) {
		called++
		return json.RawMessage(`1`), nil
	}}}
	box, err := NewToolbox(tools, CallLimits{}, compile)
	require.NoError(t, err)
	require.Equal(t, []string{`{"type":"object"}`}, compiled)

	e := newTestInProcess(t, Config{})
	res, err := e.RunWithTools(t.Context(), `let r; try { await tools.t({ok: false}) } catch (e) { r = [e.name, e.message] } [r, await tools.t({ok: true})]`, box)
	require.NoError(t, err)
	require.JSONEq(t, `[["TypeError","tools.t: invalid argument {\"ok\":false}: at /ok: must be true. Call it with an object that meets its signature"],1]`, string(res.Value))
	require.Equal(t, 1, called, "only the call that met the check ran")

	_, err = NewToolbox(tools, CallLimits{}, nil)
	require.ErrorContains(t, err, `host tool "t" has an input schema and the toolbox no schema compiler`)
}
