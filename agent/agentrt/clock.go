package agentrt

import (
	"context"
	"time"

	"github.com/loomwork/loom/agent/internal/clock"
)

// Clock tells the time of a run: its events' times, the durations it
// reports and the timeout limit's elapsed figure. The default is the
// system clock; a durable engine installs its deterministic time with
// [WithClock].
type Clock = clock.Clock

// Deadliner is a [Clock] that also keeps deadlines, as a durable engine's
// clock does with its own timers: the timeout limit
// ([github.com/loomwork/loom/agent.Limits].Timeout) bounds a run with
// WithTimeout instead of a real-time context deadline. The returned
// context must end with an error that is (or wraps)
// context.DeadlineExceeded, through context.Cause, when d has passed.
type Deadliner = clock.Deadliner

// ClockFunc adapts a function to a [Clock].
type ClockFunc func() time.Time

// Now returns f().
func (f ClockFunc) Now() time.Time { return f() }

// WithClock returns ctx whose runs read the time from c (nil: the system
// clock), replacing any clock set higher up.
func WithClock(ctx context.Context, c Clock) context.Context {
	return clock.With(ctx, c)
}

// Now returns the time by the clock on ctx: the clock of the run ctx
// belongs to, or the system clock. Code on a run's path reads the time
// through it, never time.Now, so that a replay sees the recorded time.
func Now(ctx context.Context) time.Time { return clock.From(ctx).Now() }

// Since returns the time elapsed since t by the clock on ctx.
func Since(ctx context.Context, t time.Time) time.Duration { return Now(ctx).Sub(t) }
