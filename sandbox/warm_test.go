package sandbox

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestWarmWorkerBudget checks that a run's memory budget holds whatever
// ran before it on the same worker: a run that leaves garbage behind must
// not lend its heap to the next run's allowance.
func TestWarmWorkerBudget(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("allocates a few hundred megabytes; the run without -race covers it")
	}
	lim := Limits{Memory: 64 << 20, Timeout: time.Minute}
	e, err := NewIsolated(IsolatedConfig{Limits: lim, Concurrency: 1})
	require.NoError(t, err)
	defer e.Close()
	// About half the limit, kept until the run ends, then garbage.
	const garbage = `const a = []; for (let i = 0; i < 150; i++) a.push(new Array(1e4).fill(i)); a.length`
	// About twice the limit and more, then held while the heap watchdog looks.
	const tooMuch = `const a = []; for (let i = 0; i < 1000; i++) a.push(new Array(1e4).fill(i)); let s = 0; for (let i = 0; i < 3e6; i++) s += i; a.length`
	_, err = e.Run(context.Background(), tooMuch)
	require.ErrorIs(t, err, ErrMemoryLimit, "on a fresh worker")
	for round := 0; round < 3; round++ {
		res, err := e.Run(context.Background(), garbage)
		require.NoError(t, err)
		require.JSONEq(t, "150", string(res.Value))
		_, err = e.Run(context.Background(), tooMuch)
		require.ErrorIs(t, err, ErrMemoryLimit, "round %d: the budget must not grow with the previous run's garbage", round)
	}
}
