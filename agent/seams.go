package agent

import (
	"context"
	"math/rand/v2"
	"strconv"
	"time"

	"github.com/loomwork/loom/internal/taskrun"
	"github.com/loomwork/loom/internal/telemetry"
)

// The seams: time, ids, fan-out and telemetry reach a run only through
// these functions, so that a durable engine can replace each one (fixed
// time and ids on replay, fan-out on the engine's own scheduler, no spans
// for a replayed step). The defaults behave as plain Go. A check in
// internal/seamcheck fails the build's tests when a run's code calls
// time.Now, math/rand or a go statement outside this file.

// Clock tells the time of a run.
type Clock interface {
	Now() time.Time
}

// ClockFunc adapts a function to a [Clock].
type ClockFunc func() time.Time

// Now returns f().
func (f ClockFunc) Now() time.Time { return f() }

type systemClock struct{}

func (systemClock) Now() time.Time { return time.Now() }

type clockKey struct{}

// WithClock returns ctx whose runs read the time from c: event times,
// durations and the timeout limit's elapsed figure.
func WithClock(ctx context.Context, c Clock) context.Context {
	return context.WithValue(ctx, clockKey{}, c)
}

// Now returns the time by the clock on ctx ([WithClock]), or the system
// clock.
func Now(ctx context.Context) time.Time { return clockFrom(ctx).Now() }

func clockFrom(ctx context.Context) Clock {
	if c, ok := ctx.Value(clockKey{}).(Clock); ok && c != nil {
		return c
	}
	return systemClock{}
}

// Since returns the time elapsed since t by the clock on ctx.
func Since(ctx context.Context, t time.Time) time.Duration { return Now(ctx).Sub(t) }

// WithIDs returns ctx using next to make the ids of root runs (runs with no
// parent), for fixed ids in tests or replay. A nested run's id is always
// its parent's id, a dot and its position among the parent's children
// ("r.1", "r.2", "r.2.1"), so that a replay with the same root id produces
// the same ids. By default root ids are 16 random hex digits.
func WithIDs(ctx context.Context, next func() string) context.Context {
	return context.WithValue(ctx, idKey{}, next)
}

// newRootID returns the id of a root run.
func newRootID(ctx context.Context) string {
	if next, ok := ctx.Value(idKey{}).(func() string); ok && next != nil {
		return next()
	}
	return strconv.FormatUint(rand.Uint64()|1<<63, 16)
}

// TaskRunner starts the concurrent tasks of a fan-out (parallel tool calls,
// parallel steps, map items, graph nodes) and gives them a mailbox to
// report to the run's goroutine. Go must run task exactly once, on some
// goroutine, and return without waiting for it. A durable engine supplies
// its own (Temporal's workflow.Go and a queue it can await); the default
// uses a go statement and a channel.
type TaskRunner = taskrun.Runner

// Mailbox carries a fan-out's messages from its tasks to the run's
// goroutine. Send never blocks for good: the run's goroutine receives every
// message until all tasks ended; Receive blocks until a message arrives.
type Mailbox = taskrun.Mailbox

// WithTaskRunner returns ctx whose fan-outs start their tasks through tr.
func WithTaskRunner(ctx context.Context, tr TaskRunner) context.Context {
	return taskrun.With(ctx, tr)
}

func taskRunner(ctx context.Context) TaskRunner { return taskrun.From(ctx) }

// WithTelemetry returns ctx under which runs record spans and metrics (on,
// the default) or not (off), as a durable engine does while it replays.
func WithTelemetry(ctx context.Context, on bool) context.Context {
	return telemetry.WithOff(ctx, !on)
}

// Deadliner is a [Clock] that also keeps deadlines, as a durable engine's
// clock does with its own timers: the timeout limit ([Limits].Timeout)
// bounds a run with WithTimeout instead of a real-time context deadline.
// The returned context must end with an error that is (or wraps)
// context.DeadlineExceeded, through context.Cause, when d has passed.
type Deadliner interface {
	WithTimeout(ctx context.Context, d time.Duration) (context.Context, context.CancelFunc)
}

// withTimeout bounds ctx by d: by the clock's own timers when it is a
// [Deadliner], otherwise by real time (the Go runtime's timers), whatever
// clock the run reads.
func withTimeout(ctx context.Context, d time.Duration) (context.Context, context.CancelFunc) {
	if dl, ok := clockFrom(ctx).(Deadliner); ok {
		return dl.WithTimeout(ctx, d)
	}
	return context.WithTimeout(ctx, d)
}
