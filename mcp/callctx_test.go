package mcp

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

type ctxKey string

// TestCallCtxIsDetachedFromTheRun: a call's context carries the run's
// values, not its deadline or cancellation, and ends with its own cancel,
// which contexts derived from it (as net/http derives one per request)
// follow, with its own cause rather than the run's.
func TestCallCtxIsDetachedFromTheRun(t *testing.T) {
	runCtx, cancelRun := context.WithCancelCause(context.WithValue(context.Background(), ctxKey("k"), "v"))
	runCtx, cancelDeadline := context.WithTimeout(runCtx, time.Hour)
	defer cancelDeadline()
	cc := newCallCtx()
	cc.values = runCtx

	require.Equal(t, "v", cc.Value(ctxKey("k")), "the run's values pass")
	_, has := cc.Deadline()
	require.False(t, has, "the run's deadline does not")
	derived, stopDerived := context.WithCancel(cc)
	defer stopDerived()

	cancelRun(errors.New("the run stopped to ask a person"))
	require.NoError(t, cc.Err(), "the run's cancellation does not end the call")
	require.NoError(t, derived.Err())
	require.NoError(t, context.Cause(cc))
	select {
	case <-cc.Done():
		t.Fatal("Done closed with the run")
	default:
	}

	cc.cancel()
	cc.cancel() // twice is harmless
	<-cc.Done()
	require.ErrorIs(t, cc.Err(), context.Canceled)
	require.ErrorIs(t, context.Cause(cc), context.Canceled, "the call's cause, not the run's")
	select {
	case <-derived.Done():
	case <-time.After(time.Minute): // hang guard
		t.Fatal("a context derived from the call was not cancelled with it")
	}
	require.ErrorIs(t, context.Cause(derived), context.Canceled)
}

func TestCallCtxAfterFunc(t *testing.T) {
	tests := []struct {
		name        string
		stopFirst   bool // stop is called before cancel
		cancelFirst bool // registered after cancel
		wantRun     bool
		wantStopped bool
	}{
		{name: "runs on cancel", wantRun: true},
		{name: "stopped before cancel", stopFirst: true, wantStopped: true},
		{name: "registered after cancel runs at once", cancelFirst: true, wantRun: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cc := newCallCtx()
			cc.values = context.Background()
			if tc.cancelFirst {
				cc.cancel()
			}
			ran := make(chan struct{})
			stop := context.AfterFunc(cc, func() { close(ran) })
			if !tc.cancelFirst {
				require.False(t, cc.reusable(), "a context with a registration is not reused")
			}
			if tc.stopFirst {
				require.Equal(t, tc.wantStopped, stop())
				require.True(t, cc.reusable(), "nothing waits on it any more")
			}
			cc.cancel()
			if tc.wantRun {
				select {
				case <-ran:
				case <-time.After(time.Minute): // hang guard
					t.Fatal("the function did not run")
				}
				require.False(t, stop(), "stop after the run")
				return
			}
			require.Empty(t, cc.afters, "cancel had nothing to start")
			select {
			case <-ran:
				t.Fatal("a stopped function ran")
			default:
			}
		})
	}
}
