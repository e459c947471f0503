//go:build linux

package hostile

import (
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/loomwork/loom/examples/internal/fakeopenai"
	"github.com/loomwork/loom/internal/testkit"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"
)

// spin is a snippet that runs until its time limit: a minute in the kill
// tests (spinYAML), so that a worker that outlived its host would still be
// spinning when the reaper looks.
var spin = snippet{name: "spin", code: "for(;;){}", atLimit: true}

// spinYAML is coderYAML with a minute's time limit.
var spinYAML = strings.Replace(coderYAML, "timeout: 2s", "timeout: 60s", 1)

// waitForSpin returns once a worker of the process pid has used half a
// second of CPU time (an idle worker uses next to none): the snippet runs.
func waitForSpin(t *testing.T, pid int, stderr *testkit.SyncBuffer) []int {
	t.Helper()
	var workers []int
	require.Eventually(t, func() bool {
		workers = testkit.Children(pid)
		for _, w := range workers {
			if testkit.CPUTicks(w) >= 50 {
				return true
			}
		}
		return false
	}, time.Minute, 20*time.Millisecond, "the snippet never ran; stderr: %s", stderr)
	return workers
}

// A loom run stopped by a signal while its snippet spins takes its worker
// with it: SIGTERM and SIGINT end the run with their exit statuses, and
// SIGKILL, which loom cannot handle, still leaves no worker, whose
// snippet had a minute left.
func TestLoomRunStoppedMidSnippetLeavesNoWorker(t *testing.T) {
	srv := fakeopenai.New(t, twoSnippets([]snippet{spin}))
	for _, tc := range []struct {
		sig  syscall.Signal
		code int
	}{
		{syscall.SIGKILL, -1},
		{syscall.SIGTERM, 143},
		{syscall.SIGINT, 130},
	} {
		t.Run(tc.sig.String(), func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			file := projectFile(t, dir, spinYAML)
			r := testkit.NewReaper(loom, "run", file, "-i", spin.name, "--db", filepath.Join(dir, "cp.db"))
			r.Cmd.Dir, r.Cmd.Env = dir, env(dir, srv.BaseURL())
			stdout, stderr := &testkit.SyncBuffer{}, &testkit.SyncBuffer{}
			r.Cmd.Stdout, r.Cmd.Stderr = stdout, stderr
			require.NoError(t, r.Start())
			pid := r.PID(t)
			workers := waitForSpin(t, pid, stderr)
			require.NoError(t, syscall.Kill(pid, tc.sig))
			out := r.Wait(t)
			require.Equal(t, tc.code, out.Code, "stderr: %s", stderr)
			if tc.sig == syscall.SIGKILL {
				require.Equal(t, syscall.SIGKILL, out.Signal)
			} else {
				requireEndedAsARun(t, ran{out, stdout.String(), stderr.String()}, tc.code)
			}
			require.Empty(t, out.Leftovers, "workers %v outlived the command", workers)
		})
	}
}

// A loom mcp serve killed with SIGKILL while a client's call runs a
// spinning snippet leaves no worker, and the client's call fails instead
// of hanging.
func TestMCPServeKilledMidSnippetLeavesNoWorker(t *testing.T) {
	srv := fakeopenai.New(t, twoSnippets([]snippet{spin}))
	dir := t.TempDir()
	file := projectFile(t, dir, spinYAML)
	r, cs, stderr := mcpServe(t, dir, srv.BaseURL(), file)
	ctx := t.Context()
	called := make(chan error, 1)
	go func() {
		_, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "coder", Arguments: map[string]any{"message": spin.name}})
		called <- err
	}()
	pid := r.PID(t)
	workers := waitForSpin(t, pid, stderr)
	require.NoError(t, syscall.Kill(pid, syscall.SIGKILL))
	select {
	case err := <-called:
		require.Error(t, err, "the call cannot succeed: its server was killed")
	case <-time.After(time.Minute):
		t.Fatal("the client's call hangs after its server died")
	}
	_ = cs.Close()
	out := r.Wait(t)
	require.Equal(t, syscall.SIGKILL, out.Signal)
	require.Empty(t, out.Leftovers, "workers %v outlived the killed server", workers)
}

// A loom serve killed with SIGKILL while a playground run's snippet spins
// leaves no worker.
func TestLoomServeKilledMidSnippetLeavesNoWorker(t *testing.T) {
	srv := fakeopenai.New(t, twoSnippets([]snippet{spin}))
	dir := t.TempDir()
	file := projectFile(t, dir, spinYAML)
	s := serve(t, dir, srv.BaseURL(), file)
	body := `{"agent":"coder","input":{"message":"` + spin.name + `"}}`
	code, text := s.call(t, "POST", "/api/runs", body, nil)
	require.Equal(t, 201, code, text)
	pid := s.reaper.PID(t)
	workers := waitForSpin(t, pid, s.stderr)
	require.NoError(t, syscall.Kill(pid, syscall.SIGKILL))
	out := s.reaper.Wait(t)
	require.Equal(t, syscall.SIGKILL, out.Signal)
	require.Empty(t, out.Leftovers, "workers %v outlived the killed server", workers)
}
