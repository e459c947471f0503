package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestGraphAskedOnATerminalKilledThenListed: loom run of a graph on a
// terminal (a pseudo-terminal from script(1)) asks its human node's
// question there; the terminal goes away before the answer (its session
// killed, loom hung up). Nothing is lost: loom resume --list shows the
// run and its question though loom never printed the id, and loom resume
// --approve in another process finishes it once.
func TestGraphAskedOnATerminalKilledThenListed(t *testing.T) {
	scriptBin, err := exec.LookPath("script")
	if err != nil {
		t.Skip("script(1) is not installed: it gives loom a terminal")
	}
	fakeOpenAI(t)
	file := writeFile(t, "loom.yaml", graphYAML)
	db := filepath.Join(t.TempDir(), "cp.db")

	line := strings.Join([]string{os.Args[0], "run", file, "-i", "otters", "--db", db}, " ")
	cmd := exec.Command(scriptBin, "-qfec", line, "/dev/null")
	cmd.Env = append(os.Environ(), childEnv+"=1")
	stdin, err := cmd.StdinPipe() // kept open: the terminal waits for a key
	require.NoError(t, err)
	var out syncBuffer
	cmd.Stdout, cmd.Stderr = &out, &out
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	require.NoError(t, cmd.Start())
	t.Cleanup(func() { _ = stdin.Close(); _ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL); _ = cmd.Wait() })
	require.Eventually(t, func() bool {
		return strings.Contains(out.String(), "Publish?") && strings.Contains(out.String(), "[y/N] ")
	},
		2*time.Minute, 20*time.Millisecond, "loom asked on the terminal: %s", out.String())
	require.NotContains(t, out.String(), "loom resume", "at a terminal the question is asked, not left for loom resume")

	require.NoError(t, syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)) // script and loom, as a closed terminal window
	_ = cmd.Wait()

	code, stdout, stderr := loomProcess(t, "resume", "--list", "--db", db)
	require.Equal(t, exitOK, code, stderr)
	require.Equal(t, 1, strings.Count(stdout, "continue it with: "), stdout)
	require.Contains(t, stdout, "Publish?")
	id := strings.Fields(stdout)[1] // "run ID (agent …"
	code, stdout, stderr = loomProcess(t, "resume", id, "--approve", "--db", db)
	require.Equal(t, exitOK, code, stderr)
	require.JSONEq(t, `{"message":"otters","draft":{"message":"user messages: 1"},"approve":{"approved":true}}`, stdout)
	code, stdout, _ = loomProcess(t, "resume", "--list", "--db", db)
	require.Equal(t, exitOK, code)
	require.Empty(t, stdout)
}
