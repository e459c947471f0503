package mcp

import (
	"context"
	"errors"
	"time"
)

// CloseGrace bounds how long Close waits for the server to hear that the
// requests it sent during calls (elicitation, sampling) failed; see
// [Toolset.Shutdown].
const CloseGrace = 5 * time.Second

// errClosing answers a server request that arrives or is still being
// answered when the toolset shuts down.
var errClosing = errors.New("mcp: the client is closing: the request was not answered")

// Close ends the session. Calls in flight fail; later calls return
// [ErrClosed]. A server request still open in a call (a question whose run
// stopped to ask a person, a sampling request) fails first, and Close
// waits up to [CloseGrace] for the call to end, so that the server is not
// left waiting for an answer that never comes; see [Toolset.Shutdown].
func (ts *Toolset) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), CloseGrace)
	defer cancel()
	return ts.Shutdown(ctx)
}

// Shutdown ends the session as Close does, waiting until ctx is done for
// the server to hear that its open requests failed. Each request the
// server sent during a call and did not have answered yet fails at once;
// the calls that asked them are left to end on their own (the server's
// tool sees the failure and returns), and only then, or when ctx is done,
// cancelled and the session closed. Calls with no open request are
// cancelled at once. Closing the session first would strand the server:
// the SDK drops answers written once its connection is closing, and a
// server waits for ever for an answer it never gets.
func (ts *Toolset) Shutdown(ctx context.Context) error {
	ts.dialMu.Lock()
	defer ts.dialMu.Unlock()
	ts.mu.Lock()
	if ts.closed {
		ts.mu.Unlock()
		return nil
	}
	c := ts.conn
	ts.closed, ts.conn = true, nil
	parked := ts.parked
	ts.parked = map[string]*flight{}
	// A sampling request names no call: any call may be the one waiting
	// for it.
	waitAll := ts.sampling > 0
	var open []*call
	for _, cc := range ts.calls {
		if cc.parked || cc.asking > 0 || waitAll {
			open = append(open, cc)
		} else {
			cc.ctx.cancel()
		}
	}
	drained := whenZero(ts.serving, &ts.drained)
	ts.mu.Unlock()

	ts.endLife() // requests being answered fail now
	for _, f := range parked {
		f.timer.Stop()
		f.pending.reply <- elicitAnswer{err: errNoAnswer}
	}
	for _, cc := range open {
		select {
		case <-cc.returned:
			cc.sawReturn()
		case <-ctx.Done():
		}
	}
	await(ctx, drained)
	close(ts.finished)
	for _, cc := range open {
		cc.ctx.cancel()
	}
	for _, f := range parked { // no run owns a parked call
		f.c.waitReturned()
		ts.end(f.c)
	}
	var err error
	if c != nil {
		err = c.cs.Close()
		<-c.gone
	}
	ts.mu.Lock()
	workersGone := whenZero(ts.workers, &ts.workersGone)
	ts.mu.Unlock()
	await(ctx, workersGone) // their calls ended with the session: they end now
	return err
}

// whenZero returns nil when the count n is zero, else a new channel, kept
// in *slot for whoever brings n to zero to close.
func whenZero(n int, slot *chan struct{}) chan struct{} {
	if n == 0 {
		return nil
	}
	ch := make(chan struct{})
	*slot = ch
	return ch
}

// await waits until ch is closed, if it is not nil, or ctx is done.
func await(ctx context.Context, ch <-chan struct{}) {
	if ch == nil {
		return
	}
	select {
	case <-ch:
	case <-ctx.Done():
	}
}

// serve registers a server request being answered and returns its
// context, which ends when Shutdown begins, and the function to call when
// the answer is given. It fails with errClosing once Shutdown has begun.
func (ts *Toolset) serve(ctx context.Context, sampling bool) (context.Context, func(), error) {
	ts.mu.Lock()
	if ts.closed {
		ts.mu.Unlock()
		return nil, nil, errClosing
	}
	ts.serving++
	if sampling {
		ts.sampling++
	}
	ts.mu.Unlock()
	ctx, cancel := context.WithCancel(ctx)
	stop := context.AfterFunc(ts.life, cancel)
	return ctx, func() {
		stop()
		cancel()
		ts.mu.Lock()
		ts.serving--
		if sampling {
			ts.sampling--
		}
		if ts.serving == 0 && ts.drained != nil {
			close(ts.drained)
			ts.drained = nil
		}
		ts.mu.Unlock()
	}, nil
}

// release lets f, whose question just failed, end on its own: see settle.
// It no longer takes the server's questions.
func (ts *Toolset) release(f *flight) {
	ts.mu.Lock()
	f.c.parked = true
	ts.mu.Unlock()
	go ts.settle(f)
}

// settle waits for f's request to return on its own, the server having
// heard that its question failed, for at most CloseGrace or until
// Shutdown stops waiting; then it cancels f and forgets it. Cancelling at
// once would race the failure to the server, and with Shutdown, could
// close the session before the server heard either.
func (ts *Toolset) settle(f *flight) {
	grace := time.NewTimer(CloseGrace)
	defer grace.Stop()
	select {
	case <-f.c.returned:
		f.c.sawReturn()
	case <-ts.finished:
	case <-grace.C:
	}
	f.ctx.cancel()
	f.c.waitReturned()
	ts.end(f.c)
}
