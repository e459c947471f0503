package server

import (
	"context"
	"encoding/json"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"

	"github.com/loomwork/loom/agent"
	"github.com/loomwork/loom/engine"
	"github.com/loomwork/loom/mcp/internal/callmeta"
	"github.com/loomwork/loom/sandbox/jstool"
)

type probeOut struct {
	Depth    int  `json:"depth"`
	Deadline bool `json:"deadline"`
}

// A code-mode call's depth and deadline travel in the call's _meta: the
// client writes them (package mcp tests that), and the served run gets them, so a served coder
// whose snippets call the same server is held to the caller's deadline
// and to jstool.MaxCallDepth.
func TestCallDepthAndDeadlineCrossMCP(t *testing.T) {
	// The _meta as the client writes it, through JSON as on the wire.
	var meta sdk.Meta
	require.NoError(t, json.Unmarshal([]byte(`{"progressToken":"p","loom/callDepth":2,"loom/timeoutMs":60000}`), &meta))
	sctx, scancel := servedContext(context.Background(), meta)
	defer scancel()
	require.Equal(t, 2, jstool.CallDepth(sctx))
	_, ok := sctx.Deadline()
	require.True(t, ok)
	plain, pcancel := servedContext(context.Background(), sdk.Meta{callmeta.Depth: "x", callmeta.TimeoutMs: -1})
	defer pcancel()
	require.Equal(t, 0, jstool.CallDepth(plain), "a value that is not a positive number is ignored")

	// The server's side: a served agent sees them in its run.
	probe, err := agent.NewFunc("probe", "Reports what its run sees.", func(ctx context.Context, _ struct{}) (probeOut, error) {
		_, ok := ctx.Deadline()
		return probeOut{Depth: jstool.CallDepth(ctx), Deadline: ok}, nil
	})
	require.NoError(t, err)
	s, err := New(Config{Agents: []agent.Agent{probe}, Engine: engine.New(engine.Config{})})
	require.NoError(t, err)
	cs := serveInMemory(t, s, nil)
	for _, tc := range []struct {
		meta sdk.Meta
		want probeOut
	}{
		{nil, probeOut{}},
		{sdk.Meta{callmeta.Depth: 3, callmeta.TimeoutMs: 60000}, probeOut{Depth: 3, Deadline: true}},
	} {
		res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "probe", Arguments: map[string]any{}, Meta: tc.meta})
		require.NoError(t, err)
		require.False(t, res.IsError, "%v", res.Content)
		var got probeOut
		require.NoError(t, json.Unmarshal([]byte(res.Content[0].(*sdk.TextContent).Text), &got))
		require.Equal(t, tc.want, got)
	}
}
