package engine_test

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"

	"github.com/loomwork/loom/agent"
	"github.com/loomwork/loom/checkpoint"
	"github.com/loomwork/loom/compose"
	"github.com/loomwork/loom/engine"
	"github.com/loomwork/loom/internal/testkit"
	"github.com/stretchr/testify/require"
)

// TestShutdownLeavesTheRunToContinue: a run cancelled with the cause
// ErrShutdown while its second step works is left as a crash leaves it:
// no end, so Resume with no answers finishes it in another engine, the
// first step not run again and the cut one run once more. Cancelled for
// another cause, the run ends, failed, and cannot be resumed.
func TestShutdownLeavesTheRunToContinue(t *testing.T) {
	for _, tc := range []struct {
		name   string
		cause  error
		resume error // what Resume returns: nil when it finishes the run
	}{
		{"shutdown", engine.ErrShutdown, nil},
		{"cancel", context.Canceled, engine.ErrRunEnded},
		{"other cause", errors.New("the user stopped it"), engine.ErrRunEnded},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var first, second atomic.Int32
			started := make(chan struct{}, 1)
			block := atomic.Bool{}
			block.Store(true)
			one := testkit.Fn(t, "one", func(_ context.Context, in map[string]any) (map[string]any, error) {
				first.Add(1)
				return map[string]any{"message": "one"}, nil
			})
			two := testkit.Fn(t, "two", func(ctx context.Context, in map[string]any) (map[string]any, error) {
				second.Add(1)
				if block.Load() {
					started <- struct{}{}
					<-ctx.Done()
					return nil, ctx.Err()
				}
				return map[string]any{"message": "two"}, nil
			})
			seq, err := compose.NewSequence(compose.SequenceConfig{Name: "seq", Steps: []agent.Agent{one, two}})
			require.NoError(t, err)
			store := checkpoint.NewMemory()

			ctx, cancel := context.WithCancelCause(t.Context())
			go func() { <-started; cancel(tc.cause) }()
			var runID string
			for ev := range engine.New(engine.Config{Checkpoints: store}).Run(ctx, seq, map[string]any{"message": "go"}) {
				if runID == "" && ev.Kind == agent.EventRunStart {
					runID = ev.RunID
				}
			}
			head, err := store.Head(t.Context(), runID)
			require.NoError(t, err)

			block.Store(false)
			res, err := engine.New(engine.Config{Checkpoints: store}).ResumeInvoke(t.Context(), seq, runID, nil)
			if tc.resume != nil {
				require.Equal(t, engine.CheckpointEnd, head.Kind)
				require.ErrorIs(t, err, tc.resume)
				return
			}
			require.NotEqual(t, engine.CheckpointEnd, head.Kind, "a shutdown does not end the run")
			require.NoError(t, err)
			require.Equal(t, "two", res.Text())
			require.Equal(t, int32(1), first.Load(), "the finished step is not run again")
			require.Equal(t, int32(2), second.Load(), "the cut step is run once more")
		})
	}
}
