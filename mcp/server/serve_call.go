//lint:file-ignore SA1019 logging stays in the protocol through its deprecation window.

package server

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
	set     []sdk.Content       // the result's content, when the run set it
	log     *sdk.LoggingHandler // made when the run first logs

	// Progress: the last value sent, whether one was, and whether the run
	// reports its own (then its events no longer count as steps).
	progress float64
	sent     bool
	own      bool

	// While drain follows a run: the run's context and what it ended with.
	drainCtx context.Context
	ran      runResult
}

func callFrom(ctx context.Context) *servedCall {
	c, _ := ctx.Value(callKey{}).(*servedCall)
	return c
}

// reset drops the content added so far: a resumed run adds it again.
func (c *servedCall) reset() {
	c.mu.Lock()
	c.content, c.set = nil, nil
	c.mu.Unlock()
}

func (c *servedCall) added() (added, set []sdk.Content) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.content, c.set
}

// notifyProgress sends a progress notification if the client asked for
// them and value is more than the last one sent (the protocol wants it to
// increase); own says the run reports it rather than an event.
func (c *servedCall) notifyProgress(ctx context.Context, value, total float64, msg string, own bool) bool {
	tok := c.req.Params.GetProgressToken()
	if tok == nil || c.req.Session == nil {
		return false
	}
	c.mu.Lock()
	switch {
	case !own && c.own:
		c.mu.Unlock()
		return false
	case !own:
		value = c.progress + 1
	case c.sent && value <= c.progress:
		c.mu.Unlock()
		return false
	}
	c.own = c.own || own
	c.progress, c.sent = value, true
	c.mu.Unlock()
	return c.req.Session.NotifyProgress(ctx, &sdk.ProgressNotificationParams{ProgressToken: tok, Progress: value, Total: total, Message: msg}) == nil
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

// SetResultContent sets the content of the result of the tool call a
// served run belongs to, in place of the content made from the run's
// result parts (content added with [AddContent] follows it). It is for a
// run that knows its result as MCP content, in an order parts cannot
// keep (an embedded resource between two texts). It reports whether ctx
// is a served run; outside one it does nothing.
func SetResultContent(ctx context.Context, content ...sdk.Content) bool {
	c := callFrom(ctx)
	if c == nil {
		return false
	}
	c.mu.Lock()
	c.set = append([]sdk.Content{}, content...)
	c.mu.Unlock()
	return true
}

// ReportProgress sends a progress notification for the tool call a served
// run belongs to, when its client asked for progress (a progress token):
// progress so far, out of total (zero when unknown), with a message. Once
// a run reports its own progress, its events no longer count as steps;
// a value not above the last one sent is dropped, as the protocol wants
// progress to increase. It reports whether a notification was sent.
func ReportProgress(ctx context.Context, progress, total float64, message string) bool {
	c := callFrom(ctx)
	if c == nil {
		return false
	}
	return c.notifyProgress(ctx, progress, total, message, true)
}
