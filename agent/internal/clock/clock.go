// Package clock is the clock seam of a run: the interfaces a durable
// engine's clock implements and the context key it travels under.
// Package agentrt sets it (agentrt.WithClock); package agent reads it for
// event times, durations and the timeout limit.
package clock

import (
	"context"
	"time"
)

// Clock tells the time of a run.
type Clock interface {
	Now() time.Time
}

// Deadliner is a Clock that also keeps deadlines with its own timers.
type Deadliner interface {
	WithTimeout(ctx context.Context, d time.Duration) (context.Context, context.CancelFunc)
}

// Key is the context key of the clock. A run's context answers it with
// the clock the run started with, so nested runs find it one step up.
type Key struct{}

// System is the host's clock: the default.
type System struct{}

// Now returns time.Now().
func (System) Now() time.Time { return time.Now() }

// With returns ctx whose runs read c; a nil c means the system clock.
func With(ctx context.Context, c Clock) context.Context {
	if c == nil {
		c = System{}
	}
	return context.WithValue(ctx, Key{}, c)
}

// From returns the clock on ctx, or the system clock.
func From(ctx context.Context) Clock {
	if c, ok := ctx.Value(Key{}).(Clock); ok {
		return c
	}
	return System{}
}
