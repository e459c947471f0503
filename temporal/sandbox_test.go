package temporal_test

import (
	"encoding/json"
	"testing"

	"github.com/loomwork/loom/agent"
	"github.com/loomwork/loom/sandbox/jstool"
	"github.com/loomwork/loom/temporal"
	"github.com/stretchr/testify/require"
)

// The worker's sandbox tool runs code in an isolated worker process, the
// boundary for a model's code, not in the worker's own process.
func TestWorkerSandboxToolIsIsolated(t *testing.T) {
	tool, exec, err := temporal.WorkerSandboxTool()
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, exec.Close()) })
	require.Equal(t, jstool.Name, tool.Name())
	out, err := agent.Invoke(t.Context(), tool, json.RawMessage(`{"code":"6*7"}`))
	require.NoError(t, err)
	var res jstool.Output
	require.NoError(t, json.Unmarshal(out, &res))
	require.JSONEq(t, `42`, string(res.Result))
}
