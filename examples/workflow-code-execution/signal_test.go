package main

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/loomwork/loom/examples/internal/exampletest"
	"github.com/loomwork/loom/examples/internal/fakeopenai"
	"github.com/loomwork/loom/internal/cli"
	"github.com/loomwork/loom/internal/testkit"
	"github.com/loomwork/loom/observe/store"
	"github.com/stretchr/testify/require"
)

// looping starts the example on "loop forever" with a long snippet limit
// and returns once the snippet is running in a worker process, with the
// workers' pids.
func looping(t *testing.T, dir string) (cmd *exec.Cmd, stdout, stderr *testkit.SyncBuffer, workers []int) {
	t.Helper()
	srv := fakeopenai.New(t, coder)
	cmd = exec.Command(bin, "--sandbox-timeout", "60s", "-i", "loop forever")
	cmd.Dir = dir
	cmd.Env = append([]string{"PATH=" + os.Getenv("PATH"), "HOME=" + dir, "XDG_CACHE_HOME=" + dir}, exampletest.OpenAIEnv(srv.BaseURL())...)
	stdout, stderr = &testkit.SyncBuffer{}, &testkit.SyncBuffer{}
	cmd.Stdout, cmd.Stderr = stdout, stderr
	require.NoError(t, cmd.Start())
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
		}
	})
	require.Eventually(t, func() bool {
		workers = exampletest.Children(cmd.Process.Pid)
		return strings.Contains(stdout.String(), "[evaluateJs] running:") && len(workers) > 0
	}, 30*time.Second, 20*time.Millisecond, "the snippet never started: stdout %s\nstderr %s", stdout, stderr)
	// The tool call is printed just before the snippet is sent to a
	// worker; give the worker a moment to be inside the loop, so the signal
	// interrupts code that runs (nothing is asserted on this delay).
	time.Sleep(500 * time.Millisecond)
	t.Cleanup(func() { // kill what a failed test leaves behind: our own workers
		for _, pid := range workers {
			if exampletest.Alive(pid) {
				_ = syscall.Kill(pid, syscall.SIGKILL)
			}
		}
	})
	return cmd, stdout, stderr, workers
}

// wait waits for cmd with a generous bound and returns its exit status.
func wait(t *testing.T, cmd *exec.Cmd) int {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		var ee *exec.ExitError
		if err != nil && !errors.As(err, &ee) {
			t.Fatalf("waiting for the example: %v", err)
		}
		return cmd.ProcessState.ExitCode()
	case <-time.After(30 * time.Second):
		_ = cmd.Process.Kill()
		<-done
		t.Fatal("the example did not end within 30s of the signal")
	}
	return -1
}

func TestSignalsCancelTheRunAndStopTheWorkers(t *testing.T) {
	for _, c := range []struct {
		sig  syscall.Signal
		code int
		name string
	}{
		{syscall.SIGTERM, cli.ExitTerminated, "SIGTERM"},
		{syscall.SIGINT, cli.ExitInterrupted, "SIGINT"},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			cmd, stdout, stderr, workers := looping(t, dir)
			require.NoError(t, cmd.Process.Signal(c.sig))
			require.Equal(t, c.code, wait(t, cmd), "stderr: %s", stderr)
			require.Contains(t, stderr.String(), "interrupted by "+c.name)
			require.Contains(t, stderr.String(), "the run was cancelled")
			require.NotContains(t, stderr.String()+stdout.String(), "before the code started", "the message is true: the code had started")
			for _, pid := range workers {
				require.False(t, exampletest.Alive(pid), "worker %d outlived the program", pid)
			}

			st, err := store.Open(context.Background(), store.Config{Path: filepath.Join(dir, "loom", "traces.db")})
			require.NoError(t, err, "the interrupted run's trace was flushed to the store")
			defer st.Close()
			page, err := st.Traces(context.Background(), store.Query{Limit: 10})
			require.NoError(t, err)
			require.Len(t, page.Traces, 1)
			require.Equal(t, "code_execution", page.Traces[0].Agent)
		})
	}
}

func TestWorkersDieWithAKilledParent(t *testing.T) {
	cmd, _, _, workers := looping(t, t.TempDir())
	require.NoError(t, cmd.Process.Signal(syscall.SIGKILL))
	require.Equal(t, -1, wait(t, cmd), "killed by the signal")
	require.Eventually(t, func() bool {
		for _, pid := range workers {
			if exampletest.Alive(pid) {
				return false
			}
		}
		return true
	}, 10*time.Second, 20*time.Millisecond, "a worker outlived its SIGKILLed parent")
}
