package mcp

import (
	"context"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/loomwork/loom/sandbox/jstool"
)

// The _meta keys of a tool call that carry a code-mode call's depth and
// its time left to the server, so that a served coder whose snippets call
// the server that serves it stays under the caller's deadline and cannot
// recurse without bound (jstool.MaxCallDepth).
const (
	metaCallDepth = "loom/callDepth"
	metaTimeoutMs = "loom/timeoutMs"
)

// callMeta adds ctx's code-mode call depth and time left to meta.
func callMeta(ctx context.Context, meta sdk.Meta) sdk.Meta {
	if d := jstool.CallDepth(ctx); d > 0 {
		meta[metaCallDepth] = d
	}
	if dl, ok := ctx.Deadline(); ok {
		meta[metaTimeoutMs] = max(time.Until(dl).Milliseconds(), 1)
	}
	return meta
}

// servedContext gives a served call's run the caller's code-mode depth
// and deadline, read from the call's _meta; values that are not positive
// numbers are ignored.
func servedContext(ctx context.Context, meta sdk.Meta) (context.Context, context.CancelFunc) {
	if d, ok := number(meta[metaCallDepth]); ok && d > 0 && d < 1<<20 {
		ctx = jstool.WithCallDepth(ctx, int(d))
	}
	if ms, ok := number(meta[metaTimeoutMs]); ok && ms > 0 && ms < float64(365*24*time.Hour/time.Millisecond) {
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
