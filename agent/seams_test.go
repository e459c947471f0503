package agent_test

import (
	"context"
	"testing"
	"time"

	"github.com/loomwork/loom/agent"

	"github.com/loomwork/loom/agent/agentrt"
	"github.com/stretchr/testify/require"
)

// deadlineClock is a Deadliner whose deadlines end when expire is called.
type deadlineClock struct {
	now    time.Time
	asked  time.Duration
	expire context.CancelCauseFunc
}

func (c *deadlineClock) Now() time.Time { return c.now }

func (c *deadlineClock) WithTimeout(ctx context.Context, d time.Duration) (context.Context, context.CancelFunc) {
	c.asked = d
	ctx, cancel := context.WithCancelCause(ctx)
	c.expire = cancel
	return ctx, func() { cancel(context.Canceled) }
}

func TestLimitsTimeoutUsesDeadlinerClock(t *testing.T) {
	clock := &deadlineClock{now: time.Unix(1000, 0)}
	ctx := agentrt.WithClock(context.Background(), clock)
	lctx, cancel := agent.WithLimits(ctx, agent.Limits{Timeout: time.Hour})
	defer cancel()
	require.Equal(t, time.Hour, clock.asked, "the timeout is kept by the clock's timers")
	_, hasDeadline := lctx.Deadline()
	require.False(t, hasDeadline, "no real-time deadline is set")
	require.NoError(t, lctx.Err())
	clock.expire(context.DeadlineExceeded)
	require.ErrorIs(t, context.Cause(lctx), context.DeadlineExceeded)
}

func TestLimitsTimeoutWithoutDeadlinerUsesRealTime(t *testing.T) {
	ctx := agentrt.WithClock(context.Background(), agentrt.ClockFunc(func() time.Time { return time.Unix(1000, 0) }))
	lctx, cancel := agent.WithLimits(ctx, agent.Limits{Timeout: time.Hour})
	defer cancel()
	_, hasDeadline := lctx.Deadline()
	require.True(t, hasDeadline)
}
