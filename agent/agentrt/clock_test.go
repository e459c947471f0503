package agentrt_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/loomwork/loom/agent"
	"github.com/loomwork/loom/agent/agentrt"
	"github.com/stretchr/testify/require"
)

func fixed(at time.Time) agentrt.Clock {
	return agentrt.ClockFunc(func() time.Time { return at })
}

// TestWithClockReachesNestedRuns: the clock set above a root run stamps
// the events of its nested runs and is what their bodies read; a clock set
// inside a body wins for the runs beneath it; a nil clock is the system's.
func TestWithClockReachesNestedRuns(t *testing.T) {
	outer := time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)
	inner := time.Date(2040, 6, 7, 8, 9, 10, 0, time.UTC)
	var read []time.Time
	leaf, err := agent.New(agent.Info{Name: "leaf"}, func(ctx context.Context, r *agent.Run) (json.RawMessage, error) {
		read = append(read, agentrt.Now(ctx))
		return json.RawMessage(`{}`), nil
	})
	require.NoError(t, err)
	root, err := agent.New(agent.Info{Name: "root"}, func(ctx context.Context, r *agent.Run) (json.RawMessage, error) {
		read = append(read, agentrt.Now(ctx))
		if _, err := r.Call(ctx, leaf, json.RawMessage(`{}`)); err != nil {
			return nil, err
		}
		return r.Call(agentrt.WithClock(ctx, fixed(inner)), leaf, json.RawMessage(`{}`))
	})
	require.NoError(t, err)

	times := map[string][]time.Time{}
	for ev, err := range root.Run(agentrt.WithClock(t.Context(), fixed(outer)), json.RawMessage(`{}`)) {
		require.NoError(t, err)
		times[ev.RunID] = append(times[ev.RunID], ev.Time)
	}
	require.Equal(t, []time.Time{outer, outer, inner}, read, "root, first leaf, leaf under the inner clock")
	require.Len(t, times, 3)
	for id, ts := range times {
		want := outer
		if strings.HasSuffix(id, ".2") {
			want = inner
		}
		for _, at := range ts {
			require.Equal(t, want, at, "event time of run %s", id)
		}
	}

	before := time.Now()
	got := agentrt.Now(agentrt.WithClock(agentrt.WithClock(t.Context(), fixed(outer)), nil))
	require.False(t, got.Before(before), "a nil clock is the system clock")
}

// TestSinceReadsTheClock: Since measures by the clock on ctx.
func TestSinceReadsTheClock(t *testing.T) {
	at := time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)
	ctx := agentrt.WithClock(t.Context(), fixed(at))
	require.Equal(t, 90*time.Second, agentrt.Since(ctx, at.Add(-90*time.Second)))
}
