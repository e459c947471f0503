package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestCodeModeApprovalAcrossProcesses: a code_execution agent whose
// snippets call server-everything's tools (sandbox_tools) and need
// approval. loom run stops before the snippet runs: the server sees no
// call. Approved by loom resume in another process, the snippet runs once
// and its tool call reaches the server once; a second approval is refused
// and calls nothing. Denied, a snippet calls nothing and the model is
// told why.
func TestCodeModeApprovalAcrossProcesses(t *testing.T) {
	file, db, calls := codeModeProject(t, `const r = await tools.get_sum({a: 2, b: 40}); r.message`, "get-sum")

	code, stdout, stderr := loomProcess(t, "run", file, "-i", "add 2 and 40", "--db", db)
	require.Equal(t, exitWaiting, code, stderr)
	approved := strings.TrimSpace(stdout)
	require.Contains(t, stderr, "await tools.get_sum")
	require.Zero(t, calls.Load(), "nothing ran before the approval")

	code, stdout, stderr = loomProcess(t, "resume", approved, "--approve", "--db", db)
	require.Equal(t, exitOK, code, stderr)
	require.Contains(t, stdout, "The sum of 2 and 40 is 42.")
	require.Equal(t, int32(1), calls.Load())
	code, _, stderr = loomProcess(t, "resume", approved, "--approve", "--db", db)
	require.Equal(t, exitFailed, code, stderr)
	require.Equal(t, int32(1), calls.Load(), "a second approval runs nothing")

	code, stdout, stderr = loomProcess(t, "run", file, "-i", "add 2 and 40", "--db", db)
	require.Equal(t, exitWaiting, code, stderr)
	denied := strings.TrimSpace(stdout)
	_, stdout, stderr = loomProcess(t, "resume", denied, "--deny", "--reason", "no network today", "--db", db)
	require.Contains(t, stdout, "no network today", "the model is told why: %s", stderr)
	require.Equal(t, int32(1), calls.Load(), "a denied snippet calls nothing")
}

// TestCodeModeKilledMidCallAfterApproval: an approved snippet is awaiting
// server-everything's long tool when its process is killed. loom resume
// --continue in another process runs the snippet again without asking for
// the approval again (the answer is in the checkpoints), the tool call is
// made again (the cut step, at most once more), and the run ends.
func TestCodeModeKilledMidCallAfterApproval(t *testing.T) {
	file, db, calls := codeModeProject(t, `const r = await tools.trigger_long_running_operation({duration: 2, steps: 2}); r.message`, "trigger-long-running-operation")

	code, stdout, stderr := loomProcess(t, "run", file, "-i", "run the long operation", "--db", db)
	require.Equal(t, exitWaiting, code, stderr)
	id := strings.TrimSpace(stdout)

	cmd := exec.Command(os.Args[0], "resume", id, "--approve", "--db", db)
	cmd.Env = append(os.Environ(), childEnv+"=1")
	require.NoError(t, cmd.Start())
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	require.Eventually(t, func() bool { return calls.Load() == 1 }, 2*time.Minute, 10*time.Millisecond, "the approved snippet called the tool")
	require.NoError(t, cmd.Process.Signal(syscall.SIGKILL))
	_ = cmd.Wait()

	code, _, stderr = loomProcess(t, "resume", id, "--approve", "--db", db)
	require.Equal(t, exitFailed, code, "no question is pending: %s", stderr)
	require.Contains(t, stderr, "--continue")
	code, stdout, stderr = loomProcess(t, "resume", id, "--continue", "--db", db)
	require.Equal(t, exitOK, code, stderr)
	require.Contains(t, stdout, "Long running operation completed")
	require.NotContains(t, stderr, "wants to run", "the approval is not asked again")
	require.Equal(t, int32(2), calls.Load(), "the cut call made once more")
}

// codeModeProject writes a project whose coder (approval: ask) offers its
// snippets server-everything's tool (behind everythingHTTP's proxy,
// trusted), and a model that writes code and answers with what the tool
// said. It returns the file, a checkpoint database and the count of
// tools/call requests.
func codeModeProject(t *testing.T, code, tool string) (file, db string, calls *atomic.Int32) {
	t.Helper()
	mcpURL, calls := everythingHTTP(t)
	args, err := json.Marshal(map[string]string{"code": code})
	require.NoError(t, err)
	fakeChat(t, func(body chatBody, chunk func(delta, finish any)) {
		last := body.Messages[len(body.Messages)-1]
		if last.Role == "tool" {
			chunk(map[string]any{"role": "assistant", "content": "tool said: " + fmt.Sprint(last.Content)}, nil)
			chunk(map[string]any{}, "stop")
			return
		}
		chunk(map[string]any{"role": "assistant", "tool_calls": []any{map[string]any{"index": 0, "id": "call_1", "type": "function",
			"function": map[string]any{"name": "evaluateJs", "arguments": string(args)}}}}, nil)
		chunk(map[string]any{}, "tool_calls")
	})
	file = writeFile(t, "loom.yaml", `version: loom/v1
model: openai:gpt-test
entry: coder
agents:
  ev: {type: mcp, url: "`+mcpURL+`", filter: [`+tool+`]}
  coder: {type: code_execution, approval: ask, sandbox_tools: [ev]}
`)
	trustFile(t, file)
	return file, filepath.Join(t.TempDir(), "cp.db"), calls
}
