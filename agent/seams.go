package agent

import (
	"context"
	"math/rand/v2"
	"strconv"
	"time"

	"github.com/loomwork/loom/agent/internal/clock"
	"github.com/loomwork/loom/agent/internal/runid"
	"github.com/loomwork/loom/internal/taskrun"
)

// The seams: time, ids, fan-out and telemetry reach a run only through
// these functions, so that a durable engine can replace each one (fixed
// time and ids on replay, fan-out on the engine's own scheduler, no spans
// for a replayed step). The defaults behave as plain Go. A check in
// internal/seamcheck fails the build's tests when a run's code calls
// time.Now, math/rand or a go statement outside this file (and
// agent/internal/clock, the system clock).

// now returns the time by the clock on ctx (agentrt.WithClock, answered
// by a run's context from the clock the run started with).
func now(ctx context.Context) time.Time { return clock.From(ctx).Now() }

// since returns the time elapsed since t by the clock on ctx.
func since(ctx context.Context, t time.Time) time.Duration { return now(ctx).Sub(t) }

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

// withTimeout bounds ctx by d: by the clock's own timers when it is a
// Deadliner (agentrt.Deadliner), otherwise by real time (the Go runtime's timers), whatever
// clock the run reads.
func withTimeout(ctx context.Context, d time.Duration) (context.Context, context.CancelFunc) {
	if dl, ok := clock.From(ctx).(clock.Deadliner); ok {
		return dl.WithTimeout(ctx, d)
	}
	return context.WithTimeout(ctx, d)
}
