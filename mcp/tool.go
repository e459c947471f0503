package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"strconv"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/loomwork/loom/agent"
)

// tool is one tool of the server as a loom agent.
type tool struct {
	ts         *Toolset
	name       string // on the server
	wire       string // as the model calls it
	desc       string
	in, out    json.RawMessage
	structured bool // the tool declares an output schema
	retryable  bool // annotated idempotent or read-only
}

// Name returns the name the model calls the tool by.
func (t *tool) Name() string { return t.wire }

// Description returns the server's description of the tool.
func (t *tool) Description() string { return t.desc }

// InputSchema returns the tool's input schema.
func (t *tool) InputSchema() json.RawMessage { return t.in }

// OutputSchema returns the tool's output schema, or that of {"message"}.
func (t *tool) OutputSchema() json.RawMessage { return t.out }

// Run calls the tool on the server.
func (t *tool) Run(ctx context.Context, input json.RawMessage) iter.Seq2[agent.Event, error] {
	return agent.Execute(ctx, t, input, t.body)
}

// call is one tool call in flight: where the server's notifications and
// requests about it go.
type call struct {
	token    string
	done     chan struct{} // closed when the call ended
	progress chan *sdk.ProgressNotificationParams
	elicit   chan *elicitation
}

// outcome is what the goroutine making the call reports.
type outcome struct {
	res *sdk.CallToolResult
	err error
}

// body calls the tool, turning its progress into text deltas and its
// elicitation requests into questions, and maps the result.
func (t *tool) body(ctx context.Context, r *agent.Run) (json.RawMessage, error) {
	args := json.RawMessage(`{}`)
	if len(r.Input) > 0 && string(r.Input) != "null" {
		args = r.Input
	}
	ctx, cancel := context.WithTimeout(ctx, t.ts.timeout)
	defer cancel()
	c := t.ts.begin()
	defer t.ts.end(c)
	params := &sdk.CallToolParams{Name: t.name, Arguments: args, Meta: callMeta(ctx, sdk.Meta{"progressToken": c.token})}
	done := make(chan outcome, 1)
	go func() {
		res, err := t.ts.callTool(ctx, params, t.retryable)
		done <- outcome{res, err}
	}()
	var asked error // a question the run must wait for
	for {
		select {
		case o := <-done:
			if asked != nil {
				return nil, asked
			}
			if o.err != nil {
				if errors.Is(o.err, context.DeadlineExceeded) {
					return nil, fmt.Errorf("mcp tool %s: no answer within %v: %w", t.name, t.ts.timeout, o.err)
				}
				return nil, fmt.Errorf("mcp tool %s: %w", t.name, o.err)
			}
			for drained := false; !drained; { // progress that came before the result
				select {
				case p := <-c.progress:
					if !r.Emit(agent.Event{Kind: agent.EventTextDelta, Text: progressText(p)}) {
						return nil, agent.ErrStopped
					}
				default:
					drained = true
				}
			}
			return t.result(r, o.res)
		case p := <-c.progress:
			if !r.Emit(agent.Event{Kind: agent.EventTextDelta, Text: progressText(p)}) {
				cancel()
				<-done
				return nil, agent.ErrStopped
			}
		case e := <-c.elicit:
			if asked != nil {
				e.reply <- elicitAnswer{res: &sdk.ElicitResult{Action: "cancel"}}
				continue
			}
			res, err := ask(ctx, t.name, e.params)
			if err != nil {
				asked = err
				e.reply <- elicitAnswer{res: &sdk.ElicitResult{Action: "cancel"}}
				cancel() // the run ends to wait for the answer; on resume the call is made again
				continue
			}
			e.reply <- elicitAnswer{res: res}
		}
	}
}

// progressText describes one progress notification.
func progressText(p *sdk.ProgressNotificationParams) string {
	s := "progress " + strconv.FormatFloat(p.Progress, 'f', -1, 64)
	if p.Total > 0 {
		s += "/" + strconv.FormatFloat(p.Total, 'f', -1, 64)
	}
	if p.Message != "" {
		s += ": " + p.Message
	}
	return s + "\n"
}

// begin registers a call so notifications about it find it.
func (ts *Toolset) begin() *call {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	ts.callSeq++
	c := &call{token: "loom-" + strconv.Itoa(ts.callSeq), progress: make(chan *sdk.ProgressNotificationParams, 64), elicit: make(chan *elicitation), done: make(chan struct{})}
	ts.calls[c.token] = c
	return c
}

// end forgets c.
func (ts *Toolset) end(c *call) {
	ts.mu.Lock()
	delete(ts.calls, c.token)
	ts.mu.Unlock()
	close(c.done)
}

// onProgress passes a progress notification to its call. A call that does
// not keep up loses notifications rather than stalling the session.
func (ts *Toolset) onProgress(_ context.Context, req *sdk.ProgressNotificationClientRequest) {
	tok := fmt.Sprint(req.Params.ProgressToken)
	ts.mu.Lock()
	c := ts.calls[tok]
	ts.mu.Unlock()
	if c == nil {
		return
	}
	select {
	case c.progress <- req.Params:
	default:
	}
}

// callTool makes the call over the current session. When the session is
// over it dials again, once, and retries the call if it never reached the
// server or the tool may safely run twice.
func (ts *Toolset) callTool(ctx context.Context, params *sdk.CallToolParams, retryable bool) (*sdk.CallToolResult, error) {
	c, err := ts.dial(ctx, nil)
	if err != nil {
		return nil, err
	}
	rej := new(rejection)
	res, err := c.cs.CallTool(context.WithValue(ctx, rejectionKey{}, rej), params)
	if err == nil || ctx.Err() != nil {
		return res, err
	}
	// The SDK refused to send on a closed session, the server did not know
	// the session, or its HTTP layer turned the request away.
	notSent := gone(err) || rej.Load()
	if !notSent && !c.ended() {
		return nil, err
	}
	nc, derr := ts.dial(ctx, c)
	if derr != nil {
		return nil, derr
	}
	if !notSent && !retryable {
		return nil, fmt.Errorf("%w: the session ended during the call, which may have reached the server, and the tool is not marked idempotent or read-only, so it is not retried: %w", ErrConnection, err)
	}
	return nc.cs.CallTool(ctx, params)
}
