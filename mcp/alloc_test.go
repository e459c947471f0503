package mcp

import (
	"context"
	"encoding/json"
	"math"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"

	"github.com/loomwork/loom/agent"
)

// allocRounds is how many times each side is counted, alternating; the
// lowest count of each is compared, so that one count made high by a
// collection or a pool that dropped its objects does not decide the test.
const allocRounds = 5

// TestCallAllocationsOverRawSDK: a tool call through loom (agent.Invoke of
// the toolset's tool: the run, the call beside it, the result mapping)
// allocates at most maxAllocsOverRaw objects more than the raw SDK call,
// both counted over the same in-memory session's both sides.
func TestCallAllocationsOverRawSDK(t *testing.T) {
	if testing.Short() {
		t.Skip("counts allocations over hundreds of calls")
	}
	type in struct {
		A int `json:"a"`
		B int `json:"b"`
	}
	srv := sdk.NewServer(&sdk.Implementation{Name: "allocs", Version: "1"}, nil)
	sdk.AddTool(srv, &sdk.Tool{Name: "get_sum"}, func(_ context.Context, _ *sdk.CallToolRequest, v in) (*sdk.CallToolResult, map[string]int, error) {
		return nil, map[string]int{"sum": v.A + v.B}, nil
	})
	cfg := inMemory(t, srv)
	ctx := context.Background()
	input := json.RawMessage(`{"a":2,"b":40}`)

	cs, err := sdk.NewClient(&sdk.Implementation{Name: "raw", Version: "1"}, nil).Connect(ctx, cfg.Transport(), &sdk.ClientSessionOptions{ProtocolVersion: ProtocolVersion})
	require.NoError(t, err)
	t.Cleanup(func() { _ = cs.Close() })
	params := &sdk.CallToolParams{Name: "get_sum", Arguments: input, Meta: sdk.Meta{"progressToken": "1"}}
	rawCall := func() {
		if _, e := cs.CallTool(ctx, params); e != nil {
			err = e
		}
	}

	ts := connect(t, cfg)
	sum := toolNamed(t, ts, "get_sum")
	out, err := agent.Invoke(ctx, sum, input)
	require.NoError(t, err)
	require.JSONEq(t, `{"sum":42}`, string(out))
	loomCall := func() {
		if _, e := agent.Invoke(ctx, sum, input); e != nil {
			err = e
		}
	}

	raw, loom := math.Inf(1), math.Inf(1)
	for range allocRounds {
		raw = min(raw, testing.AllocsPerRun(100, rawCall))
		loom = min(loom, testing.AllocsPerRun(100, loomCall))
	}
	require.NoError(t, err)
	t.Logf("allocations per call: raw SDK %v, through loom %v", raw, loom)
	require.LessOrEqual(t, loom-raw, float64(maxAllocsOverRaw), "raw SDK %v, through loom %v", raw, loom)
}
