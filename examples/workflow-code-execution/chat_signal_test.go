package main

import (
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/loomwork/loom/examples/internal/exampletest"
	"github.com/loomwork/loom/examples/internal/fakeopenai"
	"github.com/loomwork/loom/internal/testkit"
	"github.com/stretchr/testify/require"
)

// TestChatCtrlCCancelsTheTurn: in --chat, Ctrl-C while a snippet loops
// cancels that turn only; the chat's commands still work after it, and
// /exit leaves with status 0.
func TestChatCtrlCCancelsTheTurn(t *testing.T) {
	dir := t.TempDir()
	srv := fakeopenai.New(t, coder)
	cmd := exec.Command(bin, "--chat", "--sandbox-timeout", "60s")
	cmd.Dir = dir
	cmd.Env = append([]string{"PATH=" + os.Getenv("PATH"), "HOME=" + dir, "XDG_CACHE_HOME=" + dir}, exampletest.OpenAIEnv(srv.BaseURL())...)
	stdin, err := cmd.StdinPipe()
	require.NoError(t, err)
	stdout, stderr := &testkit.SyncBuffer{}, &testkit.SyncBuffer{}
	cmd.Stdout, cmd.Stderr = stdout, stderr
	require.NoError(t, cmd.Start())
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
		}
	})
	_, err = fmt.Fprintln(stdin, "loop forever")
	require.NoError(t, err)
	require.Eventually(t, func() bool {
		return strings.Contains(stdout.String(), "[evaluateJs] running:") && len(exampletest.Children(cmd.Process.Pid)) > 0
	}, 30*time.Second, 20*time.Millisecond, "the snippet never started: stdout %s\nstderr %s", stdout, stderr)

	require.NoError(t, cmd.Process.Signal(syscall.SIGINT))
	require.Eventually(t, func() bool { return strings.Contains(stderr.String(), "answer cancelled") },
		30*time.Second, 20*time.Millisecond, "stderr: %s", stderr)
	// The chat goes on: it still answers its commands.
	_, err = fmt.Fprintln(stdin, "/help")
	require.NoError(t, err)
	require.Eventually(t, func() bool { return strings.Contains(stdout.String(), "/clear  forget the conversation") },
		30*time.Second, 20*time.Millisecond, "stdout: %s", stdout)
	_, err = fmt.Fprintln(stdin, "/exit")
	require.NoError(t, err)
	require.Equal(t, 0, wait(t, cmd), "stderr: %s", stderr)
	require.NotContains(t, stdout.String()+stderr.String(), "unknown command")
}
