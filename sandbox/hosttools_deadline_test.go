package sandbox

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// toolRunners are both executors, for the code-mode tests.
var toolRunners = []struct {
	name string
	exec func(t *testing.T, timeout time.Duration) ToolRunner
}{
	{"in-process", func(t *testing.T, timeout time.Duration) ToolRunner {
		return newTestInProcess(t, InProcessConfig{Limits: Limits{Timeout: timeout}})
	}},
	{"isolated", func(t *testing.T, timeout time.Duration) ToolRunner {
		return newTestIsolated(t, IsolatedConfig{Limits: Limits{Timeout: timeout}, Concurrency: 1})
	}},
}

// slowCall is a tool's view of one call: whether its context had a
// deadline and how it ended.
type slowCall struct {
	deadline bool
	err      error
}

// slowTool blocks until its context ends, and reports what it saw.
func slowTool(seen chan<- slowCall) func(ctx context.Context) error {
	return func(ctx context.Context) error {
		_, ok := ctx.Deadline()
		<-ctx.Done()
		seen <- slowCall{deadline: ok, err: ctx.Err()}
		return ctx.Err()
	}
}

// A snippet that awaits a host tool slower than its time limit ends at its
// limit with the timeout kind, and the tool's context ends with it; by the
// time the run returns, the call has ended.
func TestHostToolCallEndsWithSnippetDeadline(t *testing.T) {
	for _, ex := range toolRunners {
		t.Run(ex.name, func(t *testing.T) {
			t.Parallel()
			seen := make(chan slowCall, 1)
			wait := slowTool(seen)
			box, err := NewToolbox([]HostTool{{Name: "slow", Call: func(ctx context.Context, _ json.RawMessage) (json.RawMessage, error) {
				return nil, wait(ctx)
			}}}, CallLimits{})
			require.NoError(t, err)
			// The deadline must cover the runtime's setup on a loaded
			// machine, so that it ends the tool call, not the setup: a
			// worker's start takes milliseconds, many times that under the
			// race detector.
			limit := time.Second
			if raceEnabled {
				limit = 3 * time.Second
			}
			exec := ex.exec(t, limit)
			_, err = exec.RunWithTools(context.Background(), `await tools.slow({}); "never"`, box)
			require.Equal(t, KindTimeout, ErrorKind(err), "%v", err)
			select {
			case c := <-seen:
				require.True(t, c.deadline, "the tool's context carries the snippet's deadline")
				require.Error(t, c.err, "the tool saw its context end")
			default:
				t.Fatal("the run returned while its tool call was still running")
			}
		})
	}
}

// A snippet stopped by its caller ends with the canceled kind, and its
// calls in flight are cancelled and awaited before the run returns.
func TestHostToolCallCancelledWhenSnippetIsStopped(t *testing.T) {
	for _, ex := range toolRunners {
		t.Run(ex.name, func(t *testing.T) {
			seen := make(chan slowCall, 1)
			wait := slowTool(seen)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			box, err := NewToolbox([]HostTool{{Name: "slow", Call: func(cctx context.Context, _ json.RawMessage) (json.RawMessage, error) {
				cancel() // the caller gives up once the call runs
				return nil, wait(cctx)
			}}}, CallLimits{})
			require.NoError(t, err)
			exec := ex.exec(t, time.Minute)
			_, err = exec.RunWithTools(ctx, `await tools.slow({}); "never"`, box)
			require.Equal(t, KindCanceled, ErrorKind(err), "%v", err)
			select {
			case c := <-seen:
				require.ErrorIs(t, c.err, context.Canceled, "cancelled, long before its deadline")
			default:
				t.Fatal("the run returned while its tool call was still running")
			}
		})
	}
}
