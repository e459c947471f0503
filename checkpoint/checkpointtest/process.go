package checkpointtest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/loomwork/loom/checkpoint"
	"github.com/stretchr/testify/require"
)

// Opener opens the stores under test at target: a file path, a connection
// string, or whatever the store's test passes to [RunProcesses]. Closing
// the two stores is the caller's job.
type Opener func(ctx context.Context, target string) (checkpoint.Store, checkpoint.SessionStore, error)

// Environment of a child process started by RunProcesses.
const (
	childEnv       = "LOOM_CHECKPOINTTEST_CHILD" // "race" or "kill"
	childTargetEnv = "LOOM_CHECKPOINTTEST_TARGET"
	childNameEnv   = "LOOM_CHECKPOINTTEST_NAME"
	childRoundsEnv = "LOOM_CHECKPOINTTEST_ROUNDS"
	childGoEnv     = "LOOM_CHECKPOINTTEST_GO"
)

// ChildMain runs the body of a child process when the test binary was
// started as one by [RunProcesses], and then exits; otherwise it returns
// at once. Call it first in the store's TestMain.
func ChildMain(open Opener) {
	mode := os.Getenv(childEnv)
	if mode == "" {
		return
	}
	if err := child(mode, open); err != nil {
		fmt.Fprintln(os.Stderr, "checkpointtest child:", err)
		os.Exit(1)
	}
	os.Exit(0)
}

func child(mode string, open Opener) error {
	ctx := context.Background()
	s, sess, err := open(ctx, os.Getenv(childTargetEnv))
	if err != nil {
		return err
	}
	defer s.Close()
	defer sess.Close()
	name := os.Getenv(childNameEnv)
	// Say ready, then wait for the go signal so that all children start at once.
	goFile := os.Getenv(childGoEnv)
	if err := os.WriteFile(goFile+".ready."+name, nil, 0o600); err != nil {
		return err
	}
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(time.Millisecond) {
		if _, err := os.Stat(goFile); err == nil {
			break
		}
		if time.Now().After(deadline) {
			return errors.New("no go signal within a minute")
		}
	}
	if mode == "kill" {
		return writeUntilKilled(ctx, s, sess)
	}
	rounds, err := strconv.Atoi(os.Getenv(childRoundsEnv))
	if err != nil {
		return err
	}
	return race(ctx, s, sess, name, rounds)
}

// race advances run "shared" to rounds checkpoints and session "shared" to
// rounds turns, racing other processes: on a conflict it reads the head
// (or the turns) again and tries the next one. It prints what it won and
// how many races it lost.
func race(ctx context.Context, s checkpoint.Store, sess checkpoint.SessionStore, name string, rounds int) error {
	won, appended, lost := 0, 0, 0
	for next := int64(1); next <= int64(rounds); {
		err := s.Put(ctx, checkpoint.Checkpoint{RunID: "shared", Seq: next, Kind: "step", Time: at(int(next)),
			State: json.RawMessage(strconv.Quote(name))})
		switch {
		case err == nil:
			won++
			next++
		case errors.Is(err, checkpoint.ErrConflict):
			lost++
			head, err := s.Head(ctx, "shared")
			if err != nil {
				return err
			}
			next = head.Seq + 1
		default:
			return err
		}
	}
	for have := 0; have < rounds; {
		err := sess.Append(ctx, "shared", have, json.RawMessage(strconv.Quote(name)))
		switch {
		case err == nil:
			appended++
			have++
		case errors.Is(err, checkpoint.ErrConflict):
			lost++
			turns, err := sess.Load(ctx, "shared")
			if err != nil {
				return err
			}
			have = len(turns)
		default:
			return err
		}
	}
	fmt.Printf("won %d %d %d\n", won, appended, lost)
	return nil
}

// writeUntilKilled writes checkpoints of run "killed" and turns of session
// "killed", each with a sizeable state, until the process is killed.
func writeUntilKilled(ctx context.Context, s checkpoint.Store, sess checkpoint.SessionStore) error {
	pad := strings.Repeat("x", 32<<10)
	for seq := int64(1); ; seq++ {
		state := json.RawMessage(fmt.Sprintf(`{"seq":%d,"pad":%q}`, seq, pad))
		if err := s.Put(ctx, checkpoint.Checkpoint{RunID: "killed", Seq: seq, Time: at(int(seq)), State: state}); err != nil {
			return err
		}
		if err := sess.Append(ctx, "killed", int(seq-1), state); err != nil {
			return err
		}
	}
}

// RunProcesses runs the cross-process part of the suite against the store
// at target, which must be empty: writers in several processes (this test
// binary, re-executed; see [ChildMain]) opening the store at once and then
// racing for the same checkpoints and turns, and a writer killed with
// SIGKILL in the middle of its writes.
func RunProcesses(t *testing.T, target string, open Opener) {
	if testing.Short() {
		t.Skip("starts child processes")
	}
	t.Run("Race", func(t *testing.T) { testProcessRace(t, target, open) })
	t.Run("Killed", func(t *testing.T) { testProcessKilled(t, target, open) })
}

func testProcessRace(t *testing.T, target string, open Opener) {
	const rounds = 100
	children := startChildren(t, "race", target, 3, rounds)
	won, appended, lost := 0, 0, 0
	for i, c := range children {
		out := c.wait(t)
		var w, a, l int
		_, err := fmt.Sscanf(out, "won %d %d %d", &w, &a, &l)
		require.NoError(t, err, "child %d output: %s", i, out)
		t.Logf("child %d won %d checkpoints and %d turns, lost %d races", i, w, a, l)
		won, appended, lost = won+w, appended+a, lost+l
	}
	require.Equal(t, rounds, won, "each checkpoint was won by exactly one process")
	require.Equal(t, rounds, appended, "each turn was appended by exactly one process")
	require.Positive(t, lost, "the processes raced")

	ctx := context.Background()
	s, sess := openBoth(t, target, open)
	all, err := s.List(ctx, "shared")
	require.NoError(t, err)
	require.Len(t, all, rounds)
	for i, cp := range all {
		require.Equal(t, int64(i+1), cp.Seq)
	}
	turns, err := sess.Load(ctx, "shared")
	require.NoError(t, err)
	require.Len(t, turns, rounds)
}

func testProcessKilled(t *testing.T, target string, open Opener) {
	ctx := context.Background()
	s, sess := openBoth(t, target, open)
	c := startChildren(t, "kill", target, 1, 0)[0]
	require.Eventually(t, func() bool {
		head, err := s.Head(ctx, "killed")
		return err == nil && head.Seq >= 30
	}, 2*time.Minute, 2*time.Millisecond, "the child wrote 30 checkpoints")
	require.NoError(t, c.cmd.Process.Kill()) // SIGKILL: no deferred Close, no clean shutdown
	<-c.done
	var exit *exec.ExitError
	require.ErrorAs(t, c.err, &exit, "the child was killed, not finished: %s", c.out)

	// The run is a whole line of whole checkpoints, and it continues.
	all, err := s.List(ctx, "killed")
	require.NoError(t, err)
	for i, cp := range all {
		require.Equal(t, int64(i+1), cp.Seq)
		var st struct{ Seq int64 }
		require.NoError(t, json.Unmarshal(cp.State, &st))
		require.Equal(t, cp.Seq, st.Seq)
	}
	head, err := s.Head(ctx, "killed")
	require.NoError(t, err)
	require.Equal(t, int64(len(all)), head.Seq)
	require.NoError(t, s.Put(ctx, checkpoint.Checkpoint{RunID: "killed", Seq: head.Seq + 1, Time: at(100000)}))

	turns, err := sess.Load(ctx, "killed")
	require.NoError(t, err)
	require.Contains(t, []int{len(all) - 1, len(all)}, len(turns), "at most the last turn is missing")
	require.NoError(t, sess.Append(ctx, "killed", len(turns), json.RawMessage(`"after the kill"`)))
	t.Logf("killed after %d checkpoints and %d turns", len(all), len(turns))
}

func openBoth(t *testing.T, target string, open Opener) (checkpoint.Store, checkpoint.SessionStore) {
	t.Helper()
	s, sess, err := open(context.Background(), target)
	require.NoError(t, err)
	t.Cleanup(func() {
		require.NoError(t, s.Close())
		require.NoError(t, sess.Close())
	})
	return s, sess
}

type childProc struct {
	cmd  *exec.Cmd
	out  *bytes.Buffer // read only once done is closed
	done chan struct{} // closed when the child has exited
	err  error         // cmd.Wait's, set before done is closed
}

func (c *childProc) wait(t *testing.T) string {
	t.Helper()
	<-c.done
	require.NoError(t, c.err, "child: %s", c.out)
	return c.out.String()
}

// startChildren starts n child processes in mode, waits until all are
// ready, then lets them go at once. A child that exits before it is ready
// fails the test at once with its output; one that is not ready within a
// minute is sent SIGQUIT, so that the failure shows its goroutines.
// Children still running at the end of the test are killed.
func startChildren(t *testing.T, mode, target string, n, rounds int) []*childProc {
	t.Helper()
	goFile := filepath.Join(t.TempDir(), "go")
	var children []*childProc
	for i := range n {
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), childEnv+"="+mode, childTargetEnv+"="+target, fmt.Sprintf("%s=w%d", childNameEnv, i),
			fmt.Sprintf("%s=%d", childRoundsEnv, rounds), childGoEnv+"="+goFile)
		c := &childProc{cmd: cmd, out: &bytes.Buffer{}, done: make(chan struct{})}
		cmd.Stdout, cmd.Stderr = c.out, c.out
		require.NoError(t, cmd.Start())
		go func() {
			c.err = cmd.Wait()
			close(c.done)
		}()
		t.Cleanup(func() {
			_ = cmd.Process.Kill()
			<-c.done
		})
		children = append(children, c)
	}
	deadline := time.Now().Add(time.Minute)
	for {
		ready, _ := filepath.Glob(goFile + ".ready.*")
		if len(ready) == n {
			break
		}
		for i, c := range children {
			select {
			case <-c.done:
				if _, err := os.Stat(fmt.Sprintf("%s.ready.w%d", goFile, i)); err != nil {
					t.Fatalf("child %d exited before it was ready (%v): %s", i, c.err, c.out)
				}
			default:
			}
		}
		if time.Now().After(deadline) {
			var report strings.Builder
			for i, c := range children {
				if _, err := os.Stat(fmt.Sprintf("%s.ready.w%d", goFile, i)); err == nil {
					continue
				}
				_ = c.cmd.Process.Signal(syscall.SIGQUIT)
				select {
				case <-c.done:
					fmt.Fprintf(&report, "child %d, not ready after a minute, its goroutines on SIGQUIT:\n%s\n", i, c.out)
				case <-time.After(10 * time.Second):
					fmt.Fprintf(&report, "child %d, not ready after a minute, did not exit on SIGQUIT\n", i)
				}
			}
			t.Fatalf("the children did not get ready:\n%s", report.String())
		}
		time.Sleep(time.Millisecond)
	}
	require.NoError(t, os.WriteFile(goFile, nil, 0o600))
	return children
}
