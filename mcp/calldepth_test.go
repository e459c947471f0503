package mcp

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"

	"github.com/loomwork/loom/agent"
	"github.com/loomwork/loom/engine"
	"github.com/loomwork/loom/sandbox/jstool"
)

type probeOut struct {
	Depth    int  `json:"depth"`
	Deadline bool `json:"deadline"`
}

// A code-mode call's depth and deadline travel in the call's _meta: the
// client writes them, and the served run gets them, so a served coder
// whose snippets call the same server is held to the caller's deadline
// and to jstool.MaxCallDepth.
func TestCallDepthAndDeadlineCrossMCP(t *testing.T) {
	// The client's side, through JSON as on the wire.
	ctx, cancel := context.WithTimeout(jstool.WithCallDepth(context.Background(), 2), time.Minute)
	defer cancel()
	b, err := json.Marshal(callMeta(ctx, sdk.Meta{"progressToken": "p"}))
	require.NoError(t, err)
	var meta sdk.Meta
	require.NoError(t, json.Unmarshal(b, &meta))
	sctx, scancel := servedContext(context.Background(), meta)
	defer scancel()
	require.Equal(t, 2, jstool.CallDepth(sctx))
	_, ok := sctx.Deadline()
	require.True(t, ok)
	plain, pcancel := servedContext(context.Background(), sdk.Meta{metaCallDepth: "x", metaTimeoutMs: -1})
	defer pcancel()
	require.Equal(t, 0, jstool.CallDepth(plain), "a value that is not a positive number is ignored")

	// The server's side: a served agent sees them in its run.
	probe, err := agent.NewFunc("probe", "Reports what its run sees.", func(ctx context.Context, _ struct{}) (probeOut, error) {
		_, ok := ctx.Deadline()
		return probeOut{Depth: jstool.CallDepth(ctx), Deadline: ok}, nil
	})
	require.NoError(t, err)
	s, err := NewServer(ServerConfig{Agents: []agent.Agent{probe}, Engine: engine.New(engine.Config{})})
	require.NoError(t, err)
	cs := serveInMemory(t, s, nil)
	for _, tc := range []struct {
		meta sdk.Meta
		want probeOut
	}{
		{nil, probeOut{}},
		{sdk.Meta{metaCallDepth: 3, metaTimeoutMs: 60000}, probeOut{Depth: 3, Deadline: true}},
	} {
		res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "probe", Arguments: map[string]any{}, Meta: tc.meta})
		require.NoError(t, err)
		require.False(t, res.IsError, "%v", res.Content)
		var got probeOut
		require.NoError(t, json.Unmarshal([]byte(res.Content[0].(*sdk.TextContent).Text), &got))
		require.Equal(t, tc.want, got)
	}
}
