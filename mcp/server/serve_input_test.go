package server

import (
	"context"
	"encoding/json"
	"iter"
	"sync/atomic"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"

	"github.com/loomwork/loom/agent"
	"github.com/loomwork/loom/agent/agentrt"
	"github.com/loomwork/loom/checkpoint"
)

// rawAgent is an agent that does not check its own input: the server
// must.
type rawAgent struct {
	name string
	ran  *atomic.Int32
}

func (a rawAgent) Info() agent.Info {
	return agent.Info{Name: a.name, Description: "sums without checking", InputSchema: json.RawMessage(`{"type":"object","properties":{"a":{"type":"integer"},"b":{"type":"integer"}},"required":["a","b"]}`), OutputSchema: json.RawMessage(`{"type":"object"}`)}
}

func (a rawAgent) Run(ctx context.Context, in json.RawMessage) iter.Seq2[agent.Event, error] {
	return agentrt.Execute(ctx, a, in, func(context.Context, *agent.Run) (json.RawMessage, error) {
		a.ran.Add(1)
		return json.RawMessage(`{"ok":true}`), nil
	})
}

// TestServedArgumentsAreChecked: arguments that do not match a tool's
// input schema get the same error result, naming the field, whether the
// server checks them (an agent that does not) or leaves the check to the
// agent's own run (agent.Func, which checks its input first); the agent's
// code never runs, and the server's in-memory store keeps nothing.
func TestServedArgumentsAreChecked(t *testing.T) {
	var ran atomic.Int32
	type in struct {
		A int `json:"a"`
		B int `json:"b"`
	}
	sum, err := agent.NewFunc("sum", "adds", func(_ context.Context, v in) (map[string]int, error) {
		ran.Add(1)
		return map[string]int{"sum": v.A + v.B}, nil
	})
	require.NoError(t, err)
	s, err := New(Config{Agents: []agent.Agent{sum, rawAgent{name: "raw", ran: &ran}}})
	require.NoError(t, err)
	cs := serveInMemory(t, s, nil)
	for _, tc := range []struct {
		tool, args, says string
	}{
		{"sum", `{"a":"two","b":40}`, "invalid arguments for sum: a: expected integer, got string; the arguments must match"},
		{"sum", `{"a":2}`, "invalid arguments for sum: b: required; the arguments must match"},
		{"raw", `{"a":"two","b":40}`, "invalid arguments for raw: "},
		{"raw", `{"a":2}`, "invalid arguments for raw: "},
	} {
		t.Run(tc.tool+" "+tc.args, func(t *testing.T) {
			res, err := cs.CallTool(t.Context(), &sdk.CallToolParams{Name: tc.tool, Arguments: json.RawMessage(tc.args)})
			require.NoError(t, err)
			require.True(t, res.IsError)
			text := res.Content[0].(*sdk.TextContent).Text
			require.Contains(t, text, tc.says)
			require.Contains(t, text, `"required":["a","b"]`, "the message shows the schema")
		})
	}
	require.Zero(t, ran.Load(), "no agent code ran on bad arguments")
	runs, err := s.mem.Runs(t.Context(), checkpoint.RunFilter{})
	require.NoError(t, err)
	require.Empty(t, runs)

	for _, tool := range []string{"sum", "raw"} {
		res, err := cs.CallTool(t.Context(), &sdk.CallToolParams{Name: tool, Arguments: json.RawMessage(`{"a":2,"b":40}`)})
		require.NoError(t, err)
		require.False(t, res.IsError, "%v", res.Content)
	}
	require.EqualValues(t, 2, ran.Load())
}
