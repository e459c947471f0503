//lint:file-ignore SA1019 logging stays in the protocol through its deprecation window.

package mcp

import (
	"context"
	"sync"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// callKey keys the served call in the context of its run.
type callKey struct{}

// servedCall is one tools/call being served: its request, and the content
// its run adds to the result.
type servedCall struct {
	req *sdk.CallToolRequest

	mu      sync.Mutex
	content []sdk.Content
	log     *sdk.LoggingHandler // made when the run first logs
}

func callFrom(ctx context.Context) *servedCall {
	c, _ := ctx.Value(callKey{}).(*servedCall)
	return c
}

// reset drops the content added so far: a resumed run adds it again.
func (c *servedCall) reset() {
	c.mu.Lock()
	c.content = nil
	c.mu.Unlock()
}

func (c *servedCall) added() []sdk.Content {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.content
}

// CallRequest returns the MCP request of the tool call a served run
// belongs to, or nil when ctx is not one of a [Server]'s runs. Through its
// Session a run reaches the whole protocol (log notifications, sampling,
// elicitation, progress) with the SDK's own methods; its Params carry the
// progress token.
func CallRequest(ctx context.Context) *sdk.CallToolRequest {
	if c := callFrom(ctx); c != nil {
		return c.req
	}
	return nil
}

// AddContent adds content to the result of the tool call a served run
// belongs to: embedded resources, resource links, or any other MCP
// content beside the run's output and result parts. It reports whether
// ctx is a served run; outside one it does nothing. A run resumed after
// a question adds its content again: content added before the question
// is dropped.
func AddContent(ctx context.Context, content ...sdk.Content) bool {
	c := callFrom(ctx)
	if c == nil {
		return false
	}
	c.mu.Lock()
	c.content = append(c.content, content...)
	c.mu.Unlock()
	return true
}
