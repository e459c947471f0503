package mcp

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"

	"github.com/loomwork/loom/mcp/internal/callmeta"
	"github.com/loomwork/loom/sandbox/jstool"
)

// A code-mode call's depth and deadline travel in the call's _meta: the
// client writes them (the server's side is tested in package server).
func TestCallMetaCarriesDepthAndDeadline(t *testing.T) {
	ctx, cancel := context.WithTimeout(jstool.WithCallDepth(context.Background(), 2), time.Minute)
	defer cancel()
	b, err := json.Marshal(callMeta(ctx, sdk.Meta{"progressToken": "p"}))
	require.NoError(t, err)
	var meta sdk.Meta
	require.NoError(t, json.Unmarshal(b, &meta))
	require.Equal(t, "p", meta["progressToken"])
	require.EqualValues(t, 2, meta[callmeta.Depth])
	ms, ok := meta[callmeta.TimeoutMs].(float64)
	require.True(t, ok, "%v", meta)
	require.Greater(t, ms, 0.0)
	require.LessOrEqual(t, ms, float64(time.Minute/time.Millisecond))

	plain := callMeta(context.Background(), sdk.Meta{})
	require.Empty(t, plain, "no depth or deadline, no keys")
}
