//go:build linux

package hostile

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/loomwork/loom/examples/internal/fakeopenai"
	"github.com/loomwork/loom/internal/testkit"
	"github.com/stretchr/testify/require"
)

// A loom run killed with SIGKILL while its snippet spins takes its worker
// with it: the worker, whose snippet has a minute left, is gone at once
// instead of living on as an orphan.
func TestLoomRunKilledMidSnippetLeavesNoWorker(t *testing.T) {
	spin := snippet{name: "spin", code: "for(;;){}"}
	srv := fakeopenai.New(t, twoSnippets([]snippet{spin}))
	dir := t.TempDir()
	file := filepath.Join(dir, "loom.yaml")
	require.NoError(t, os.WriteFile(file, []byte(strings.Replace(coderYAML, "timeout: 2s", "timeout: 60s", 1)), 0o644))
	r := testkit.NewReaper(loom, "run", file, "-i", spin.name, "--db", filepath.Join(dir, "cp.db"))
	r.Cmd.Dir, r.Cmd.Env = dir, env(dir, srv.BaseURL())
	var stdout, stderr strings.Builder
	r.Cmd.Stdout, r.Cmd.Stderr = &stdout, &stderr
	require.NoError(t, r.Start())
	pid := r.PID(t)
	// The snippet runs once a worker of the command has used half a
	// second of CPU time (an idle worker uses next to none).
	var workers []int
	require.Eventually(t, func() bool {
		workers = testkit.Children(pid)
		for _, w := range workers {
			if testkit.CPUTicks(w) >= 50 {
				return true
			}
		}
		return false
	}, time.Minute, 20*time.Millisecond, "the snippet never ran; stderr: %s", &stderr)
	require.NoError(t, syscall.Kill(pid, syscall.SIGKILL))
	out := r.Wait(t)
	require.Equal(t, syscall.SIGKILL, out.Signal)
	require.Empty(t, out.Leftovers, "workers %v outlived the killed command", workers)
}
