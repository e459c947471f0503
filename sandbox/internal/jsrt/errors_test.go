package jsrt

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"
)

func newTestInProcess(t *testing.T, cfg Config) *InProcess {
	t.Helper()
	e, err := NewInProcess(cfg)
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, e.Close()) })
	return e
}

func TestErrorKindsAndSentinels(t *testing.T) {
	for kind, sentinel := range sentinels {
		err := error(&Error{Kind: kind, Message: "m"})
		require.ErrorIs(t, err, sentinel)
		require.Equal(t, kind, KindOf(fmt.Errorf("wrapped: %w", err)))
		for other, s := range sentinels {
			if other != kind {
				require.NotErrorIs(t, err, s)
			}
		}
	}
	require.Equal(t, Kind(""), KindOf(errors.New("other")))
}

// echoBox is a toolbox whose one tool, echo, counts its calls.
func echoBox(t *testing.T, calls *atomic.Int64) *Toolbox {
	t.Helper()
	box, err := NewToolbox([]HostTool{{Name: "echo", Call: func(_ context.Context, args json.RawMessage) (json.RawMessage, error) {
		calls.Add(1)
		return args, nil
	}}}, CallLimits{}, nil)
	require.NoError(t, err)
	return box
}

// TestCallAfterRunRefused: once a run's calls' context ended, the host
// side refuses every call, and the tool does not run.
func TestCallAfterRunRefused(t *testing.T) {
	var calls atomic.Int64
	box := echoBox(t, &calls)
	ctx, cancel := context.WithCancel(context.Background())
	spec := box.localSpec(ctx, DefaultLimits())
	_, err := spec.Call(0, "echo", json.RawMessage(`{"message":"a"}`))
	require.NoError(t, err)
	cancel()
	_, err = spec.Call(1, "echo", json.RawMessage(`{"message":"b"}`))
	require.ErrorIs(t, err, ErrRunEnded)
	var ce *CallError
	require.True(t, errors.As(err, &ce))
	require.Equal(t, "echo", ce.Tool)
	require.EqualValues(t, 1, calls.Load())
}
