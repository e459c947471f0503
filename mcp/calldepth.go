package mcp

import (
	"context"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/loomwork/loom/mcp/internal/callmeta"
	"github.com/loomwork/loom/sandbox/jstool"
)

// callMeta adds ctx's code-mode call depth and time left to meta.
func callMeta(ctx context.Context, meta sdk.Meta) sdk.Meta {
	if d := jstool.CallDepth(ctx); d > 0 {
		meta[callmeta.Depth] = d
	}
	if dl, ok := ctx.Deadline(); ok {
		meta[callmeta.TimeoutMs] = max(time.Until(dl).Milliseconds(), 1)
	}
	return meta
}
