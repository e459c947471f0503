package server

import (
	"context"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/loomwork/loom/mcp/internal/callmeta"
	"github.com/loomwork/loom/sandbox/jstool"
)

// servedContext gives a served call's run the caller's code-mode depth
// and deadline, read from the call's _meta; values that are not positive
// numbers are ignored.
func servedContext(ctx context.Context, meta sdk.Meta) (context.Context, context.CancelFunc) {
	if d, ok := number(meta[callmeta.Depth]); ok && d > 0 && d < 1<<20 {
		ctx = jstool.WithCallDepth(ctx, int(d))
	}
	if ms, ok := number(meta[callmeta.TimeoutMs]); ok && ms > 0 && ms < float64(365*24*time.Hour/time.Millisecond) {
		return context.WithTimeout(ctx, time.Duration(ms)*time.Millisecond)
	}
	return context.WithCancel(ctx)
}

// number reads a JSON number of _meta, decoded or not.
func number(v any) (float64, bool) {
	switch n := v.(type) {
	case float64:
		return n, true
	case int:
		return float64(n), true
	case int64:
		return float64(n), true
	}
	return 0, false
}
