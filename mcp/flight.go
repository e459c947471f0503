package mcp

import (
	"encoding/json"
	"strconv"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// call is one tool call in flight: where the server's notifications and
// requests about it go.
type call struct {
	token  int64     // the progress token, unique in the toolset
	notes  chan note // the server's progress and elicitations, in order
	parked bool      // guarded by Toolset.mu: its run stopped to ask a person
	asking int       // guarded by Toolset.mu: its elicitations being answered
	ctx    *callCtx  // the request's context: its cancel ends the call
	// returned holds one token once the request returned, with res and err
	// set: see waitReturned.
	returned chan struct{}
	res      *sdk.CallToolResult
	err      error
}

// waitReturned blocks until c's request returned.
//
// returned is a channel of capacity one that the worker sends one token
// to when the request returned. Whoever takes the token puts it back
// (sawReturn), so that it stays there for every other waiter, as a closed
// channel would signal them all; unlike a closed channel, the flight's
// next call reuses it.
func (c *call) waitReturned() {
	<-c.returned
	c.sawReturn()
}

// sawReturn puts back the token a receive from c.returned took.
func (c *call) sawReturn() { c.returned <- struct{}{} }

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
// free list with what the next call can reuse: its notes and returned
// channels, its _meta map, its timeout timer, and its context when that
// was never cancelled and its transport holds no context (callCtx).
type flight struct {
	tool      string
	retryable bool // the tool may safely run twice
	c         *call
	answered  []*sdk.ElicitParams // questions answered in this call, in order
	pending   *elicitation        // the question the run stopped for
	timer     *time.Timer         // ends a parked flight left without an answer
	elicited  bool                // the server asked a question in this call
	ctxFree   bool                // the call's transport holds no context after it returned

	// The call, its context, parameters, arguments and progress token,
	// its channels and its _meta map live in the flight, which the free
	// list reuses.
	ctx      *callCtx
	rec      call
	params   sdk.CallToolParams
	args     json.RawMessage // params.Arguments points here: boxing a pointer allocates nothing
	tag      progressTag
	notes    chan note
	returned chan struct{}
	meta     sdk.Meta
	clock    *time.Timer // the call's timeout
}

// progressToken's key in a request's _meta.
const progressTokenKey = "progressToken"

// progressTag is a call's progress token in its request's _meta, encoded
// as the call's number. Being a pointer into the flight, it goes into the
// map without the allocation that boxing a fresh number would cost; the
// server sees a number and sends it back as one, which onProgress reads.
type progressTag struct {
	n   int64
	buf [20]byte
}

// MarshalJSON encodes the token as its number. The bytes are the tag's
// own: the encoder copies them before the next call can change them.
func (p *progressTag) MarshalJSON() ([]byte, error) {
	return strconv.AppendInt(p.buf[:0], p.n, 10), nil
}

// freeFlights bounds the toolset's free list of flights.
const freeFlights = 16

// flight returns a flight from the free list, or a new one.
func (ts *Toolset) flight() *flight {
	select {
	case f := <-ts.free:
		return f
	default:
		return &flight{notes: make(chan note, 64), returned: make(chan struct{}, 1), meta: sdk.Meta{}}
	}
}

// recycle puts f, ended and held by nobody, back on the free list,
// emptied: its notes channel drained (an elicitation left in it was
// failed by the call's return), its returned token taken, its _meta map
// cleared, its context kept only if the next call may use it.
func (ts *Toolset) recycle(f *flight) {
	for len(f.notes) > 0 {
		<-f.notes
	}
	select {
	case <-f.returned:
	default:
	}
	clear(f.meta)
	ctx := f.ctx
	if f.ctxFree && ctx.reusable() {
		ctx.values = nil
	} else {
		ctx = nil
	}
	*f = flight{ctx: ctx, notes: f.notes, returned: f.returned, meta: f.meta, clock: f.clock}
	select {
	case ts.free <- f:
	default:
	}
}

// timeout returns f's timer, running for d.
func (f *flight) timeout(d time.Duration) *time.Timer {
	if f.clock == nil {
		f.clock = time.NewTimer(d)
	} else {
		f.clock.Reset(d) // a stopped timer's channel holds no stale tick (Go 1.23)
	}
	return f.clock
}

// begin makes c f's new call and registers it so notifications about it
// find it. Its progress token is a number: a string would cost more on
// both sides, and the protocol takes either.
func (ts *Toolset) begin(c *call, f *flight) *call {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	ts.callSeq++
	*c = call{token: ts.callSeq, notes: f.notes, ctx: f.ctx, returned: f.returned}
	ts.calls[c.token] = c
	return c
}

// maxIdleWorkers bounds the workers that wait for the next call once
// theirs returned; the others end.
const maxIdleWorkers = 8

// launch hands f's call to an idle worker, or starts one. A worker makes
// calls one after the other, so that a call costs no go statement (whose
// closure is an allocation); the call runs beside its run, which streams
// its progress and answers its elicitations meanwhile.
func (ts *Toolset) launch(f *flight) {
	select {
	case ts.work <- f:
		return
	default:
	}
	ts.mu.Lock()
	if ts.closed {
		ts.mu.Unlock()
		f.c.err = ErrClosed
		f.c.returned <- struct{}{}
		return
	}
	ts.workers++
	ts.mu.Unlock()
	go ts.worker(f)
}

// worker makes f's call, then the calls launch hands it, until it has
// waited idle while maxIdleWorkers others did, or Shutdown began.
func (ts *Toolset) worker(f *flight) {
	defer ts.workerDone()
	for {
		ts.callTool(f)
		f.c.returned <- struct{}{} // from here f is its run's again
		if ts.idle.Add(1) > maxIdleWorkers {
			ts.idle.Add(-1)
			return
		}
		select {
		case f = <-ts.work:
			ts.idle.Add(-1)
		case <-ts.life.Done():
			ts.idle.Add(-1)
			return
		}
	}
}

// workerDone counts a worker out, and tells Shutdown when the last one
// ended.
func (ts *Toolset) workerDone() {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	ts.workers--
	if ts.workers == 0 && ts.workersGone != nil {
		close(ts.workersGone)
		ts.workersGone = nil
	}
}
