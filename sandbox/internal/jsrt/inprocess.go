package jsrt

import (
	"context"
	"errors"
	"runtime"
	"sync"
	"sync/atomic"
	"time"
)

// InProcess runs code with goja in the calling process: a fresh runtime per
// run (set up ahead, between runs: spare.go), with every limit of [Limits]
// and the hardening described in the package documentation. It contains
// accidental faults, but it cannot stop a built-in that ignores interrupts,
// nor a single huge allocation: use [github.com/loomwork/loom/sandbox.Isolated] for untrusted code. It is
// safe for concurrent use.
type InProcess struct {
	cfg    *Config
	slots  chan struct{}
	wd     *watchdog
	closed atomic.Bool
	wg     sync.WaitGroup // the run goroutines
	spares *spares        // runtimes set up ahead (spare.go)
}

var _ Executor = (*InProcess)(nil)

// NewInProcess returns an in-process executor configured by c, whose zero
// fields take their defaults.
func NewInProcess(c Config) (*InProcess, error) {
	cfg, err := c.WithDefaults()
	if err != nil {
		return nil, err
	}
	e := &InProcess{cfg: cfg, slots: make(chan struct{}, cfg.Concurrency), wd: newWatchdog(), spares: newSpares(cfg.Concurrency)}
	go e.spares.prepare(cfg)
	return e, nil
}

// Limits returns the limits every run gets.
func (e *InProcess) Limits() Limits { return e.cfg.Limits }

// Run runs code on a fresh runtime. It waits for a concurrency slot first
// (the wait counts against ctx, not against the time limit). It returns
// within the time limit plus the grace period: a run that does not stop
// by then is given up and keeps its slot until it ends.
func (e *InProcess) Run(ctx context.Context, code string) (*Result, error) {
	return e.RunHost(ctx, code, nil)
}

// RunHost runs code; host, when set, makes the run's host tools from the
// context its calls run under, which ends when the run does.
func (e *InProcess) RunHost(ctx context.Context, code string, host func(context.Context) HostSpec) (*Result, error) {
	return e.RunFor(ctx, code, e.cfg.Limits.Timeout, host)
}

// RunFor is RunHost with limit as this run's time limit in place of the
// executor's Limits.Timeout: a worker keeps one executor, and its runtimes
// set up ahead, for runs whose time limits differ.
func (e *InProcess) RunFor(ctx context.Context, code string, limit time.Duration, host func(context.Context) HostSpec) (*Result, error) {
	if e.closed.Load() {
		return nil, ErrClosed
	}
	start := time.Now()
	lim := e.cfg.Limits
	timeout, byCtx := EffectiveTimeout(ctx, limit)
	if err := ctx.Err(); err != nil {
		return &Result{}, ContextError(err, timeout)
	}
	select {
	case e.slots <- struct{}{}:
	case <-ctx.Done():
		return &Result{Duration: time.Since(start)}, ContextError(ctx.Err(), timeout)
	}
	j := e.spares.take(e.cfg, code, timeout)
	if host != nil {
		// The calls end when the run is stopped or over; their deadline, the
		// run's plus grace, is a bound the tools see (and pass on).
		callCtx, cancel := context.WithDeadline(ctx, time.Now().Add(timeout+lim.Grace))
		defer cancel()
		j.tools = newJSTools(host(callCtx), callCtx, cancel)
	}
	type outcome struct {
		res *Result
		err error
	}
	done := make(chan outcome, 1)
	// Everything the caller arms is armed before the run's goroutine
	// starts, so that the caller blocks right after the go statement: the
	// new goroutine then runs on this thread at once (it is next in line on
	// this P), where another thread would steal it a few microseconds later
	// and the run would wait for that thread to be scheduled.
	if !byCtx {
		t := time.AfterFunc(timeout, func() { j.stop(KindTimeout, nil) })
		defer t.Stop()
	}
	if ctx.Done() != nil {
		stopCtx := context.AfterFunc(ctx, func() {
			if errors.Is(ctx.Err(), context.DeadlineExceeded) {
				j.stop(KindTimeout, ctx.Err())
			} else {
				j.stop(KindCanceled, ctx.Err())
			}
		})
		defer stopCtx()
	}
	hardAt := start.Add(timeout + lim.Grace)
	hard := time.NewTimer(time.Until(hardAt))
	defer hard.Stop()
	e.wd.add(j)
	e.wg.Add(1)
	go func() {
		func() {
			defer e.wg.Done()
			defer func() { <-e.slots }()
			defer e.wd.remove(j)
			res, err := j.execute()
			if j.tools != nil {
				j.tools.end() // cancel the calls in flight and wait for them
			}
			done <- outcome{res, err}
		}()
		// The reply made the caller runnable on this P, next in line: yield
		// so it runs now instead of after the next runtime's setup (or on
		// another P only once one steals it), then set that runtime up.
		runtime.Gosched()
		e.spares.prepare(e.cfg)
	}()
	ctxDone := ctx.Done()
	for {
		select {
		case o := <-done:
			if o.res == nil {
				o.res = &Result{}
			}
			o.res.Duration = time.Since(start)
			return o.res, o.err
		case <-ctxDone:
			ctxDone = nil
			if at := time.Now().Add(lim.Grace); at.Before(hardAt) {
				hardAt = at
				hard.Reset(time.Until(at))
			}
		case <-hard.C:
			// The run ignores its interrupt (a native built-in is running):
			// give it up. Its goroutine keeps its slot until it ends.
			res := &Result{Duration: time.Since(start)}
			if r := j.reason.Load(); r != nil && r.kind == KindCanceled {
				return res, &Error{Kind: KindCanceled, Message: "The run was canceled by the caller before the code finished.", cause: r.cause}
			}
			var cause error
			if byCtx {
				cause = context.DeadlineExceeded
			}
			return res, TimeoutError(timeout, cause, true)
		}
	}
}

// Close makes later runs fail with ErrClosed and drops the runtimes set
// up ahead. Runs in progress go on; use Wait to wait for them.
func (e *InProcess) Close() error {
	e.closed.Store(true)
	e.spares.close()
	return nil
}

// Wait waits until every run goroutine has ended, given-up runs included,
// or until ctx ends.
func (e *InProcess) Wait(ctx context.Context) error {
	done := make(chan struct{})
	go func() {
		e.wg.Wait()
		close(done)
	}()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// EffectiveTimeout is the time limit, or the time left before ctx's
// deadline when that is sooner (byCtx).
func EffectiveTimeout(ctx context.Context, limit time.Duration) (time.Duration, bool) {
	if dl, ok := ctx.Deadline(); ok {
		if d := time.Until(dl); d < limit {
			return max(d, 0), true
		}
	}
	return limit, false
}

// ContextError is the error for a context that ended before the run
// started.
func ContextError(err error, timeout time.Duration) *Error {
	if errors.Is(err, context.DeadlineExceeded) {
		return TimeoutError(timeout, err, false)
	}
	return &Error{Kind: KindCanceled, Message: "The run was canceled by the caller before the code started.", cause: err}
}
