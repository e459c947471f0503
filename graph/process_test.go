package graph_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/loomwork/loom/agent"
	"github.com/loomwork/loom/checkpoint/sqlite"
	"github.com/loomwork/loom/graph"
	"github.com/stretchr/testify/require"
)

// Environment of a child process (see TestKillAndResume).
const (
	childDirEnv    = "LOOM_GRAPH_TEST_CHILD_DIR"
	childModeEnv   = "LOOM_GRAPH_TEST_CHILD_MODE"
	childAnswerEnv = "LOOM_GRAPH_TEST_CHILD_ANSWER"
)

// childMain runs a child process's body when this test binary was started
// as one, and reports whether it was.
func childMain() bool {
	dir := os.Getenv(childDirEnv)
	if dir == "" {
		return false
	}
	if err := childRun(dir, os.Getenv(childModeEnv), os.Getenv(childAnswerEnv)); err != nil {
		fmt.Fprintln(os.Stderr, "child:", err)
		os.Exit(1)
	}
	os.Exit(0)
	return true
}

// effect appends name to the effects file: the side effect each Once must
// do exactly once.
func effect(dir, name string) error {
	f, err := os.OpenFile(filepath.Join(dir, "effects"), os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600)
	if err != nil {
		return err
	}
	defer f.Close()
	_, err = f.WriteString(name + "\n")
	return err
}

// blockIf writes the marker "in-<name>" and blocks until the process is
// killed when the file "block-<name>" exists.
func blockIf(dir, name string) {
	if _, err := os.Stat(filepath.Join(dir, "block-"+name)); err != nil {
		return
	}
	_ = os.WriteFile(filepath.Join(dir, "in-"+name), nil, 0o600)
	select {}
}

// effectNode does its effect through Once, then may block to be killed.
func effectNode(dir, name string) func(context.Context, st) (st, error) {
	return func(ctx context.Context, s st) (st, error) {
		if _, err := graph.Once(ctx, name, func(context.Context) (bool, error) { return true, effect(dir, name) }); err != nil {
			return s, err
		}
		blockIf(dir, name)
		s.Log = append(s.Log, name)
		return s, nil
	}
}

func childRun(dir, mode, answers string) error {
	ctx := context.Background()
	store, err := sqlite.Open(ctx, filepath.Join(dir, "graph.db"))
	if err != nil {
		return err
	}
	defer store.Close()
	g := graph.New[st](graph.Config{Name: "job", Store: store}).Reducer("log", graph.Append()).
		Node("charge", effectNode(dir, "charge"))
	askNode(g, "approve")
	g.Node("ship", effectNode(dir, "ship")).
		Edge(graph.START, "charge").Edge("charge", "approve").Edge("approve", "ship").Edge("ship", graph.END)
	c, err := g.Compile()
	if err != nil {
		return err
	}
	var out st
	switch mode {
	case "run":
		out, err = c.Invoke(ctx, "job-1", st{Topic: "order"})
	case "resume":
		var a map[string]json.RawMessage
		if answers != "" {
			if err := json.Unmarshal([]byte(answers), &a); err != nil {
				return err
			}
		}
		out, err = c.ResumeInvoke(ctx, "job-1", a)
	default:
		return fmt.Errorf("unknown mode %q", mode)
	}
	if ie := agent.Interrupts(err); ie != nil {
		// Waiting at the human-input node: publish the request, then wait
		// like a server would until the process is killed.
		b, _ := json.Marshal(ie.Questions)
		if err := os.WriteFile(filepath.Join(dir, "waiting.tmp"), b, 0o600); err != nil {
			return err
		}
		if err := os.Rename(filepath.Join(dir, "waiting.tmp"), filepath.Join(dir, "waiting")); err != nil {
			return err
		}
		select {}
	}
	if err != nil {
		return err
	}
	return json.NewEncoder(os.Stdout).Encode(out)
}

// startChild starts this test binary as a child process.
func startChild(t *testing.T, dir, mode, answers string) (*exec.Cmd, *strings.Builder) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), childDirEnv+"="+dir, childModeEnv+"="+mode, childAnswerEnv+"="+answers)
	var out, errb strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errb
	require.NoError(t, cmd.Start())
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
		}
		if t.Failed() {
			t.Logf("child %s stderr: %s", mode, errb.String())
		}
	})
	return cmd, &out
}

// waitFile waits for dir/name to appear, or the child to exit.
func waitFile(t *testing.T, cmd *exec.Cmd, dir, name string) {
	t.Helper()
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	deadline := time.After(2 * time.Minute)
	for {
		if _, err := os.Stat(filepath.Join(dir, name)); err == nil {
			require.NoError(t, cmd.Process.Signal(syscall.SIGKILL))
			err := <-exited
			var ee *exec.ExitError
			require.True(t, errors.As(err, &ee), "the child was killed: %v", err)
			return
		}
		select {
		case err := <-exited:
			t.Fatalf("the child exited (%v) before %s appeared", err, name)
		case <-deadline:
			t.Fatalf("%s did not appear", name)
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// TestKillAndResume kills a child process with SIGKILL while a step runs
// (after its Once effect), and again while it waits at the human-input
// node, and once more in the step after the answer; the next child
// resumes each time. Every effect happens exactly once.
func TestKillAndResume(t *testing.T) {
	if testing.Short() {
		t.Skip("starts child processes")
	}
	dir := t.TempDir()
	touch := func(name string) { require.NoError(t, os.WriteFile(filepath.Join(dir, name), nil, 0o600)) }
	rm := func(name string) { require.NoError(t, os.Remove(filepath.Join(dir, name))) }

	touch("block-charge")
	cmd, _ := startChild(t, dir, "run", "")
	waitFile(t, cmd, dir, "in-charge") // killed inside the charge step
	rm("block-charge")

	cmd, _ = startChild(t, dir, "resume", "")
	waitFile(t, cmd, dir, "waiting") // killed while waiting for approval
	var qs []agent.Question
	b, err := os.ReadFile(filepath.Join(dir, "waiting"))
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(b, &qs))
	require.Len(t, qs, 1)
	require.Equal(t, "approval", qs[0].Kind)

	touch("block-ship")
	ans, _ := json.Marshal(map[string]json.RawMessage{qs[0].ID: yes()})
	cmd, _ = startChild(t, dir, "resume", string(ans))
	waitFile(t, cmd, dir, "in-ship") // killed inside the ship step
	rm("block-ship")

	cmd, out := startChild(t, dir, "resume", "")
	require.NoError(t, cmd.Wait())
	var final st
	require.NoError(t, json.Unmarshal([]byte(out.String()), &final))
	require.Equal(t, []string{"charge", "approve=true", "ship"}, final.Log)

	effects, err := os.ReadFile(filepath.Join(dir, "effects"))
	require.NoError(t, err)
	require.Equal(t, "charge\nship\n", string(effects), "each Once effect happened exactly once")
}
