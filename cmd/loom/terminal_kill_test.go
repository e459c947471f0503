package main

import (
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/loomwork/loom/internal/testkit"
)

// TestGraphAskedOnATerminalKilledThenListed: loom run of a graph on a
// terminal (a pseudo-terminal from script(1)) asks its human node's
// question there; the terminal goes away before the answer (its session
// killed, loom hung up). Nothing is lost: loom resume --list shows the
// run and its question though loom never printed the id, and loom resume
// --approve in another process finishes it once.
func TestGraphAskedOnATerminalKilledThenListed(t *testing.T) {
	fakeOpenAI(t)
	file := writeFile(t, "loom.yaml", graphYAML)
	db := filepath.Join(t.TempDir(), "cp.db")

	cmd, _, out := onTerminal(t, "run", file, "-i", "otters", "--db", db)
	shows(t, out, "Publish?", "[y/N] ")
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

// onTerminal starts loom with args on a pseudo-terminal (script(1)) in a
// process group of its own, killed when the test ends, and returns it,
// the terminal's keyboard and what the terminal shows.
func onTerminal(t *testing.T, args ...string) (*exec.Cmd, io.WriteCloser, *testkit.SyncBuffer) {
	t.Helper()
	scriptBin, err := exec.LookPath("script")
	if err != nil {
		t.Skip("script(1) is not installed: it gives loom a terminal")
	}
	cmd := exec.Command(scriptBin, "-qfec", strings.Join(append([]string{os.Args[0]}, args...), " "), "/dev/null")
	cmd.Env = append(os.Environ(), childEnv+"=1")
	stdin, err := cmd.StdinPipe() // kept open: the terminal waits for keys
	require.NoError(t, err)
	out := &testkit.SyncBuffer{}
	cmd.Stdout, cmd.Stderr = out, out
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	require.NoError(t, cmd.Start())
	t.Cleanup(func() { _ = stdin.Close(); _ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL); _ = cmd.Wait() })
	return cmd, stdin, out
}

// shows waits until the terminal shows each of texts.
func shows(t *testing.T, out *testkit.SyncBuffer, texts ...string) {
	t.Helper()
	require.Eventually(t, func() bool {
		for _, s := range texts {
			if !strings.Contains(out.String(), s) {
				return false
			}
		}
		return true
	}, 2*time.Minute, 20*time.Millisecond, "the terminal shows %q: %s", texts, out.String())
}
