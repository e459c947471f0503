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
	"github.com/loomwork/loom/agent/agentrt"
)

// tool is one tool of the server as a loom agent.
type tool struct {
	ts         *Toolset
	name       string // on the server
	wire       string // as the model calls it
	desc       string
	in, out    json.RawMessage
	structured bool                                                       // the tool declares an output schema
	retryable  bool                                                       // annotated idempotent or read-only
	bodyFn     func(context.Context, *agent.Run) (json.RawMessage, error) // t.body, made once rather than per call
}

// Info returns the name the model calls the tool by, the server's
// description of the tool, and its input and output schemas (the output's
// is that of {"message"} when the server declares none).
func (t *tool) Info() agent.Info {
	return agent.Info{Name: t.wire, Description: t.desc, InputSchema: t.in, OutputSchema: t.out}
}

// Run calls the tool on the server.
func (t *tool) Run(ctx context.Context, input json.RawMessage) iter.Seq2[agent.Event, error] {
	return agentrt.Execute(ctx, t, input, t.bodyFn)
}

// body calls the tool, or goes on with the call parked for this run,
// turning its progress into text deltas and answering its elicitation
// requests, and maps the result.
func (t *tool) body(ctx context.Context, r *agent.Run) (json.RawMessage, error) {
	f := t.ts.unpark(r.ID, t.name)
	if f == nil {
		args := r.Input
		if len(args) == 0 || string(args) == "null" {
			args = json.RawMessage(`{}`)
		}
		f = t.start(ctx, args)
	} else {
		// Ask the questions answered before again, so that the run's
		// answers line up with the questions the resumed run asks.
		for _, p := range f.answered {
			if _, err := t.ts.answer(ctx, t.name, p); err != nil {
				return nil, t.abandon(f, err)
			}
		}
	}
	return t.wait(ctx, r, f)
}

// start makes the call on one of the toolset's workers. The call
// outlives ctx's cancellation, so that a parked call waits for its run's
// resumption; it ends with its own context's cancel.
func (t *tool) start(ctx context.Context, args json.RawMessage) *flight {
	f := t.ts.flight()
	if f.ctx == nil {
		f.ctx = newCallCtx()
	}
	f.ctx.values = ctx
	if t.ts.cfg.URL != "" { // only HTTP requests can be refused before they reach the server
		f.ctx.rej = new(rejection)
	}
	f.tool, f.retryable = t.name, t.retryable
	c := t.ts.begin(&f.rec, f)
	f.c = c
	f.tag.n = c.token
	f.meta[progressTokenKey] = &f.tag
	f.args = args
	f.params = sdk.CallToolParams{Name: t.name, Arguments: &f.args, Meta: callMeta(ctx, f.meta)}
	t.ts.launch(f)
	return f
}

// finish ends f: the call is cancelled if still in flight (returned
// reports that it is not), then forgotten. A call that returned is
// cancelled too when its transport may still hold its context (HTTP: the
// goroutine reading its event stream). It reports whether f may go back
// to the pool once its caller is done with it (see recycle).
func (t *tool) finish(f *flight, returned bool) bool {
	if !returned || !f.ctxFree {
		f.ctx.cancel()
	}
	f.c.waitReturned()
	held := t.ts.end(f.c)
	return !held && !f.elicited && f.timer == nil
}

// abandon fails f's unanswered question with err, ends f and returns err.
func (t *tool) abandon(f *flight, err error) error {
	if f.pending != nil {
		f.pending.reply <- elicitAnswer{err: err}
		f.pending = nil
	}
	t.ts.release(f)
	return err
}

// wait follows f to its result.
func (t *tool) wait(ctx context.Context, r *agent.Run, f *flight) (json.RawMessage, error) {
	timer := f.timeout(t.ts.timeout)
	defer timer.Stop()
	// handle answers e; done reports that the run must end with err.
	handle := func(e *elicitation) (err error, done bool) {
		f.elicited = true
		res, err := t.ts.answer(ctx, t.name, e.params)
		if err != nil {
			if _, asking := errors.AsType[*agent.InterruptedError](err); asking {
				f.pending = e
				t.ts.park(r.ID, f)
				return err, true
			}
			f.pending = e
			return t.abandon(f, err), true
		}
		e.reply <- elicitAnswer{res: res}
		f.answered = append(f.answered, e.params)
		timer.Reset(t.ts.timeout) // the time a person took does not count
		return nil, false
	}
	if e := f.pending; e != nil {
		f.pending = nil
		if err, done := handle(e); done {
			return nil, err
		}
	}
	for {
		select {
		case <-f.c.returned:
			f.c.sawReturn()
			reuse := t.finish(f, true)
			out, err := t.returned(r, f)
			if reuse {
				t.ts.recycle(f)
			}
			return out, err
		case n := <-f.c.notes:
			if n.elicit != nil {
				if err, done := handle(n.elicit); done {
					return nil, err
				}
			} else if !agentrt.Emit(r, agent.Event{Kind: agent.EventTextDelta, Text: progressText(n.progress)}) {
				t.end(f)
				return nil, agentrt.ErrStopped
			}
		case <-timer.C:
			t.end(f)
			return nil, fmt.Errorf("mcp tool %s: no answer within %v: %w", t.name, t.ts.timeout, context.DeadlineExceeded)
		case <-ctx.Done():
			t.end(f)
			return nil, ctx.Err()
		}
	}
}

// returned maps the result of f's call, which returned, after passing on
// the progress that came before it.
func (t *tool) returned(r *agent.Run, f *flight) (json.RawMessage, error) {
	if f.c.err != nil {
		return nil, fmt.Errorf("mcp tool %s: %w", t.name, f.c.err)
	}
	for { // progress that came before the result
		select {
		case n := <-f.c.notes:
			// An elicitation now goes unanswered: its asker sees the call
			// returned.
			if n.progress != nil && !agentrt.Emit(r, agent.Event{Kind: agent.EventTextDelta, Text: progressText(n.progress)}) {
				return nil, agentrt.ErrStopped
			}
		default:
			return t.result(r, f.c.res)
		}
	}
}

// end finishes f, which the run leaves before its call returned, and
// recycles it when it may.
func (t *tool) end(f *flight) {
	if t.finish(f, false) {
		t.ts.recycle(f)
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

// end forgets c. It reports whether c may still be held by another
// goroutine: an elicitation handler answering for it, or Shutdown, which
// reads the calls it waits for outside the lock.
func (ts *Toolset) end(c *call) (held bool) {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	delete(ts.calls, c.token)
	return c.asking > 0 || ts.closed
}

// onProgress passes a progress notification to its call. A call that does
// not keep up loses notifications rather than stalling the session.
func (ts *Toolset) onProgress(_ context.Context, req *sdk.ProgressNotificationClientRequest) {
	tok, ok := progressToken(req.Params.ProgressToken)
	if !ok {
		return
	}
	// The send does not block, and is made under the lock so that no
	// progress handler holds a call once end has forgotten it.
	ts.mu.Lock()
	defer ts.mu.Unlock()
	if c := ts.calls[tok]; c != nil {
		select {
		case c.notes <- note{progress: req.Params}:
		default:
		}
	}
}

// progressToken reads a progress token of loom's calls as the server sent
// it back: a JSON number, or the same number as a string.
func progressToken(v any) (int64, bool) {
	switch v := v.(type) {
	case float64:
		return int64(v), v == float64(int64(v))
	case int64:
		return v, true
	case int:
		return int64(v), true
	case json.Number:
		n, err := v.Int64()
		return n, err == nil
	case string:
		n, err := strconv.ParseInt(v, 10, 64)
		return n, err == nil
	}
	return 0, false
}

// callTool makes f's call over the current session and sets its result.
// When the session is over it dials again, once, and retries the call if
// it never reached the server or the tool may safely run twice.
func (ts *Toolset) callTool(f *flight) {
	f.c.res, f.c.err = ts.callOnce(f)
}

// callOnce is callTool's call and its retry.
func (ts *Toolset) callOnce(f *flight) (*sdk.CallToolResult, error) {
	ctx, params := f.ctx, &f.params
	c, err := ts.dial(ctx, nil)
	if err != nil {
		return nil, err
	}
	f.ctxFree = c.ctxFree
	res, err := c.cs.CallTool(ctx, params)
	if err == nil || ctx.Err() != nil {
		return res, err
	}
	// The SDK refused to send on a closed session, the server did not know
	// the session, or its HTTP layer turned the request away.
	notSent := gone(err) || (ctx.rej != nil && ctx.rej.Load())
	if !notSent && !c.ended() {
		return nil, err
	}
	nc, derr := ts.dial(ctx, c)
	if derr != nil {
		return nil, derr
	}
	if !notSent && !f.retryable {
		return nil, fmt.Errorf("%w: the session ended during the call, which may have reached the server, and the tool is not marked idempotent or read-only, so it is not retried: %w", ErrConnection, err)
	}
	f.ctxFree = f.ctxFree && nc.ctxFree
	return nc.cs.CallTool(ctx, params)
}
