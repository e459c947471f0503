package temporal_test

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/loomwork/loom/agent"
	"github.com/loomwork/loom/sandbox"
	"github.com/loomwork/loom/sandbox/jstool"
	"github.com/loomwork/loom/temporal"
	"github.com/stretchr/testify/require"
)

// The worker's sandbox tool runs code in an isolated worker process, the
// boundary for a model's code, not in the worker's own process.
func TestWorkerSandboxToolIsIsolated(t *testing.T) {
	tool, exec, err := temporal.WorkerSandboxTool(sandbox.IsolatedConfig{})
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, exec.Close()) })
	require.Equal(t, jstool.Name, tool.Info().Name)
	out, err := agent.Invoke(t.Context(), tool, json.RawMessage(`{"code":"6*7"}`))
	require.NoError(t, err)
	var res jstool.Output
	require.NoError(t, json.Unmarshal(out, &res))
	require.JSONEq(t, `42`, string(res.Result))
}

// The workflow's sandbox tool shows the model the worker's tool: the same
// name, description and schemas, so the activity runs what the model was
// told of. Run outside a workflow, it refuses.
func TestSandboxToolMatchesWorkerTool(t *testing.T) {
	lim := sandbox.Limits{Timeout: 2 * time.Second, Memory: 64 << 20}
	wf, err := temporal.SandboxTool(lim, temporal.ActivityOptions{})
	require.NoError(t, err)
	worker, exec, err := temporal.WorkerSandboxTool(sandbox.IsolatedConfig{Limits: lim})
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, exec.Close()) })
	require.Equal(t, worker.Info().Name, wf.Info().Name)
	require.Equal(t, worker.Info().Description, wf.Info().Description)
	require.Contains(t, wf.Info().Description, "2s of time, 64 MiB of memory")
	require.JSONEq(t, string(worker.Info().InputSchema), string(wf.Info().InputSchema))
	require.JSONEq(t, string(worker.Info().OutputSchema), string(wf.Info().OutputSchema))
	_, err = agent.Invoke(t.Context(), wf, json.RawMessage(`{"code":"6*7"}`))
	require.ErrorIs(t, err, temporal.ErrNotWorkflow)
}
