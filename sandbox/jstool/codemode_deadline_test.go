package jstool

import (
	"context"
	"encoding/json"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/loomwork/loom/agent"
	"github.com/loomwork/loom/sandbox"
)

// toolRunners are both executors, for the code-mode tests.
var toolRunners = []struct {
	name string
	exec func(t *testing.T, timeout time.Duration) sandbox.ToolRunner
}{
	{"in-process", func(t *testing.T, timeout time.Duration) sandbox.ToolRunner {
		return newTestInProcess(t, sandbox.InProcessConfig{Limits: sandbox.Limits{Timeout: timeout}})
	}},
	{"isolated", func(t *testing.T, timeout time.Duration) sandbox.ToolRunner {
		return newTestIsolated(t, sandbox.IsolatedConfig{Limits: sandbox.Limits{Timeout: timeout}, Concurrency: 1})
	}},
}

// slowCall is a tool's view of one call: whether its context had a
// deadline and how it ended.
type slowCall struct {
	deadline bool
	err      error
	depth    int
}

// slowTool blocks until its context ends, and reports what it saw.
func slowTool(seen chan<- slowCall) func(ctx context.Context) error {
	return func(ctx context.Context) error {
		_, ok := ctx.Deadline()
		<-ctx.Done()
		seen <- slowCall{deadline: ok, err: ctx.Err(), depth: CallDepth(ctx)}
		return ctx.Err()
	}
}

// In code mode (New WithToolsets) a snippet with a short limit that
// awaits a slow agent tool (an MCP tool, say) ends at its limit with the
// timeout kind, and the nested run's context ends with it: the run lasts
// the snippet's limit, not the tool's time.
func TestCodeModeToolEndsWithSnippetDeadline(t *testing.T) {
	for _, ex := range toolRunners {
		t.Run(ex.name, func(t *testing.T) {
			seen := make(chan slowCall, 1)
			wait := slowTool(seen)
			slow, err := agent.NewFunc("slow", "Takes its time.", func(ctx context.Context, _ struct{}) (struct{}, error) {
				return struct{}{}, wait(ctx)
			})
			require.NoError(t, err)
			ts := agent.ToolsetFunc(func(context.Context) ([]agent.Agent, error) { return []agent.Agent{slow}, nil })
			tool, err := New(ex.exec(t, 300*time.Millisecond), Config{Toolsets: []agent.Toolset{ts}})
			require.NoError(t, err)
			in, _ := json.Marshal(Input{Code: `await tools.slow({}); "never"`})
			_, err = agent.Invoke(context.Background(), tool, in)
			require.Equal(t, sandbox.KindTimeout, sandbox.ErrorKind(err), "%v", err)
			select {
			case c := <-seen:
				require.True(t, c.deadline, "the nested run's context carries the snippet's deadline")
				require.Error(t, c.err)
				require.Equal(t, 1, c.depth, "one code-mode level deep")
			default:
				t.Fatal("the tool run returned while the nested call was still running")
			}
		})
	}
}

// Code-mode calls nest at most MaxCallDepth deep: past it a call is
// refused with an error the snippet can catch, and the tool never runs.
func TestCodeModeCallDepthLimit(t *testing.T) {
	for _, ex := range toolRunners {
		t.Run(ex.name, func(t *testing.T) {
			ran := false
			probe, err := agent.NewFunc("probe", "Reports its depth.", func(ctx context.Context, _ struct{}) (int, error) {
				ran = true
				return CallDepth(ctx), nil
			})
			require.NoError(t, err)
			ts := agent.ToolsetFunc(func(context.Context) ([]agent.Agent, error) { return []agent.Agent{probe}, nil })
			tool, err := New(ex.exec(t, 0), Config{Toolsets: []agent.Toolset{ts}})
			require.NoError(t, err)
			in, _ := json.Marshal(Input{Code: `let r; try { r = await tools.probe({}) } catch (e) { r = e.message }; r`})
			tests := []struct {
				depth int
				want  string
				ran   bool
			}{
				{0, `1`, true},
				{MaxCallDepth - 1, `4`, true},
				{MaxCallDepth, `"tools.probe: sandbox: tool call refused: code-mode calls nest too deep: this call would nest code-mode tool calls 5 deep, past the limit of 4`, false},
			}
			for _, tc := range tests {
				ran = false
				out, err := agent.Invoke(WithCallDepth(context.Background(), tc.depth), tool, in)
				require.NoError(t, err)
				var got Output
				require.NoError(t, json.Unmarshal(out, &got))
				require.Contains(t, string(got.Result), tc.want, "depth %d", tc.depth)
				require.Equal(t, tc.ran, ran, "depth %d", tc.depth)
			}
		})
	}
}

// A tool that runs the same code tool again, whose snippet calls it again
// (a served coder whose snippets reach its own server, in one process),
// stops at MaxCallDepth with an error the innermost snippet gets, instead
// of recursing without bound.
func TestCodeModeRecursionIsBounded(t *testing.T) {
	const code = `let r; try { r = await tools.again({}) } catch (e) { r = e.message }; r`
	var tool agent.Agent
	var calls atomic.Int32
	again, err := agent.NewFunc("again", "Runs the code tool again.", func(ctx context.Context, _ struct{}) (json.RawMessage, error) {
		calls.Add(1)
		in, _ := json.Marshal(Input{Code: code})
		return agent.Invoke(ctx, tool, in)
	})
	require.NoError(t, err)
	ts := agent.ToolsetFunc(func(context.Context) ([]agent.Agent, error) { return []agent.Agent{again}, nil })
	// Each level's snippet holds a slot while the next runs.
	tool, err = New(newTestInProcess(t, sandbox.InProcessConfig{Concurrency: MaxCallDepth + 1}), Config{Toolsets: []agent.Toolset{ts}})
	require.NoError(t, err)
	in, _ := json.Marshal(Input{Code: code})
	out, err := agent.Invoke(context.Background(), tool, in)
	require.NoError(t, err)
	require.Contains(t, string(out), "past the limit of 4")
	require.Equal(t, int32(MaxCallDepth), calls.Load(), "the tool ran at depths 1 to MaxCallDepth")
}
