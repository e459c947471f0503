package agent

import (
	"context"
	"math/rand/v2"
	"strconv"
	"time"

	"github.com/loomwork/loom/agent/internal/runid"
	"github.com/loomwork/loom/internal/taskrun"
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

// Now returns the time by the clock of ctx's [Env], or the system clock.
func Now(ctx context.Context) time.Time { return clockFrom(ctx).Now() }

func clockFrom(ctx context.Context) Clock { return envFrom(ctx).clockOr() }

// Since returns the time elapsed since t by the clock on ctx.
func Since(ctx context.Context, t time.Time) time.Duration { return Now(ctx).Sub(t) }

// newRootID returns the id of a root run.
func newRootID(ctx context.Context) string {
	if next := runid.From(ctx); next != nil {
		return next()
	}
	return strconv.FormatUint(rand.Uint64()|1<<63, 16)
}

// taskRunner returns the task runner on ctx (agentrt.WithTaskRunner), or
// the default one.
func taskRunner(ctx context.Context) taskrun.Runner { return taskrun.From(ctx) }

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
