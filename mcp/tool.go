package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"strconv"
	"time"

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
	structured bool                                                       // the tool declares an output schema
	retryable  bool                                                       // annotated idempotent or read-only
	bodyFn     func(context.Context, *agent.Run) (json.RawMessage, error) // t.body, made once rather than per call
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
	return agent.Execute(ctx, t, input, t.bodyFn)
}

// call is one tool call in flight: where the server's notifications and
// requests about it go.
type call struct {
	token    int64     // the progress token, unique in the toolset
	notes    chan note // the server's progress and elicitations, in order
	parked   bool      // guarded by Toolset.mu: its run stopped to ask a person
	asking   int       // guarded by Toolset.mu: its elicitations being answered
	cancel   context.CancelFunc
	returned chan struct{} // closed when the request returned, with res and err set
	res      *sdk.CallToolResult
	err      error
}

// note is one message of the server about a call: a progress
// notification or an elicitation request.
type note struct {
	progress *sdk.ProgressNotificationParams
	elicit   *elicitation
}

// flight is a call being made and what a run needs to go on with it. When
// a server's elicitation makes the run stop to ask a person, the flight is
// parked in its toolset under the run's id with the question unanswered:
// the server keeps waiting, and the run, resumed in this process, answers
// it and the tool runs once.
//
// A flight that ended without a question, with nobody holding its call
// (no elicitation handler, no progress handler: they reach a call only
// through Toolset.calls, under Toolset.mu), goes back to the toolset's
// pool with its notes channel and _meta map for the next call.
type flight struct {
	tool     string
	c        *call
	cancel   context.CancelFunc
	answered []*sdk.ElicitParams // questions answered in this call, in order
	pending  *elicitation        // the question the run stopped for
	timer    *time.Timer         // ends a parked flight left without an answer
	elicited bool                // the server asked a question in this call

	// The call, its parameters, its notes channel and its _meta map live
	// in the flight, which the pool reuses.
	rec    call
	params sdk.CallToolParams
	notes  chan note
	meta   sdk.Meta
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

// start makes the call in a goroutine. The call outlives ctx's
// cancellation, so that a parked call waits for its run's resumption; it
// ends with f.cancel.
func (t *tool) start(ctx context.Context, args json.RawMessage) *flight {
	cctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	f := t.ts.flight()
	f.tool, f.cancel = t.name, cancel
	c := t.ts.begin(&f.rec, f.notes, cancel)
	f.c = c
	f.meta[progressTokenKey] = c.token
	f.params = sdk.CallToolParams{Name: t.name, Arguments: args, Meta: callMeta(ctx, f.meta)}
	params := &f.params
	go func() {
		c.res, c.err = t.ts.callTool(cctx, params, t.retryable)
		close(c.returned)
	}()
	return f
}

// finish ends f: the call is cancelled if still in flight, then forgotten.
// It reports whether f may go back to the pool once its caller is done
// with it (see recycle).
func (t *tool) finish(f *flight) bool {
	f.cancel()
	<-f.c.returned
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
	timer := t.ts.timer()
	defer t.ts.putTimer(timer)
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
			reuse := t.finish(f)
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
			} else if !r.Emit(agent.Event{Kind: agent.EventTextDelta, Text: progressText(n.progress)}) {
				t.end(f)
				return nil, agent.ErrStopped
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
			if n.progress != nil && !r.Emit(agent.Event{Kind: agent.EventTextDelta, Text: progressText(n.progress)}) {
				return nil, agent.ErrStopped
			}
		default:
			return t.result(r, f.c.res)
		}
	}
}

// end finishes f, which the run leaves, and recycles it when it may.
func (t *tool) end(f *flight) {
	if t.finish(f) {
		t.ts.recycle(f)
	}
}

// progressTokenKey is the _meta key of a request's progress token.
const progressTokenKey = "progressToken"

// flight returns a flight from the pool, or a new one.
func (ts *Toolset) flight() *flight {
	if f, ok := ts.flights.Get().(*flight); ok {
		return f
	}
	return &flight{notes: make(chan note, 64), meta: sdk.Meta{}}
}

// recycle puts f, ended and held by nobody, back in the pool, emptied:
// its notes channel drained (an elicitation left in it was failed by the
// call's return), its _meta map cleared.
func (ts *Toolset) recycle(f *flight) {
	for len(f.notes) > 0 {
		<-f.notes
	}
	clear(f.meta)
	notes, meta := f.notes, f.meta
	*f = flight{notes: notes, meta: meta}
	ts.flights.Put(f)
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

// begin makes c a new call and registers it so notifications about it
// find it. Its progress token is a number: a string would be one more
// allocation per call, and the protocol takes either.
func (ts *Toolset) begin(c *call, notes chan note, cancel context.CancelFunc) *call {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	ts.callSeq++
	*c = call{token: ts.callSeq, notes: notes, cancel: cancel, returned: make(chan struct{})}
	ts.calls[c.token] = c
	return c
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

// callTool makes the call over the current session. When the session is
// over it dials again, once, and retries the call if it never reached the
// server or the tool may safely run twice.
func (ts *Toolset) callTool(ctx context.Context, params *sdk.CallToolParams, retryable bool) (*sdk.CallToolResult, error) {
	c, err := ts.dial(ctx, nil)
	if err != nil {
		return nil, err
	}
	var rej *rejection
	if ts.cfg.URL != "" { // only HTTP requests can be refused before they reach the server
		rej = new(rejection)
		ctx = context.WithValue(ctx, rejectionKey{}, rej)
	}
	res, err := c.cs.CallTool(ctx, params)
	if err == nil || ctx.Err() != nil {
		return res, err
	}
	// The SDK refused to send on a closed session, the server did not know
	// the session, or its HTTP layer turned the request away.
	notSent := gone(err) || (rej != nil && rej.Load())
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

// timer returns a timer running for the call timeout, from the toolset's
// pool: one per call would be three allocations.
func (ts *Toolset) timer() *time.Timer {
	if tm, ok := ts.timers.Get().(*time.Timer); ok {
		tm.Reset(ts.timeout)
		return tm
	}
	return time.NewTimer(ts.timeout)
}

// putTimer stops tm and returns it to the pool. (Since Go 1.23 a stopped
// timer's channel holds no stale tick, so a reused timer cannot fire
// early.)
func (ts *Toolset) putTimer(tm *time.Timer) {
	tm.Stop()
	ts.timers.Put(tm)
}
