package sqlite

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
	"testing"
	"time"

	"github.com/loomwork/loom/checkpoint"
	"github.com/stretchr/testify/require"
)

// Environment of a child writer process (see TestProcessesRace).
const (
	childDBEnv     = "LOOM_CHECKPOINT_TEST_CHILD_DB"
	childNameEnv   = "LOOM_CHECKPOINT_TEST_CHILD_NAME"
	childRoundsEnv = "LOOM_CHECKPOINT_TEST_CHILD_ROUNDS"
	childGoEnv     = "LOOM_CHECKPOINT_TEST_CHILD_GO"
)

// childMain runs the body of a child writer process when this test binary
// was started as one, and reports whether it was.
func childMain() bool {
	path := os.Getenv(childDBEnv)
	if path == "" {
		return false
	}
	rounds, err := strconv.Atoi(os.Getenv(childRoundsEnv))
	if err == nil {
		err = raceWriter(path, os.Getenv(childNameEnv), rounds)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "child writer:", err)
		os.Exit(1)
	}
	os.Exit(0)
	return true
}

// raceWriter races for each next checkpoint of run "shared" until the run
// has rounds checkpoints, and appends to session "shared" the same way. On
// a conflict it reads the head again and tries the next Seq. It prints how
// many Puts and Appends it won and how many conflicts it saw. It starts
// when the go file appears, so that all writers start at once.
func raceWriter(path, name string, rounds int) error {
	ctx := context.Background()
	s, err := Open(ctx, path)
	if err != nil {
		return err
	}
	defer s.Close()
	sess, err := OpenSessions(ctx, path)
	if err != nil {
		return err
	}
	defer sess.Close()
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
	won, appended, conflicts := 0, 0, 0
	for next := int64(1); next <= int64(rounds); {
		err := s.Put(ctx, checkpoint.Checkpoint{RunID: "shared", Seq: next, Kind: "step", Time: time.Unix(0, next),
			State: json.RawMessage(strconv.Quote(name))})
		switch {
		case err == nil:
			won++
			next++
		case errors.Is(err, checkpoint.ErrConflict):
			conflicts++
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
			conflicts++
			turns, err := sess.Load(ctx, "shared")
			if err != nil {
				return err
			}
			have = len(turns)
		default:
			return err
		}
	}
	fmt.Printf("won %d %d %d\n", won, appended, conflicts)
	return nil
}

// TestProcessesRace runs three processes (this test binary, re-executed)
// racing to advance one run and one session in one file: every Seq and
// every turn is written exactly once, and the wins add up.
func TestProcessesRace(t *testing.T) {
	if testing.Short() {
		t.Skip("starts child processes")
	}
	path := filepath.Join(t.TempDir(), "shared.db")
	const rounds = 200
	// Create the file first so the children race on checkpoints, not on
	// creating the schema (TestProcessesOpenNewFile covers that).
	s := openAt(t, path)

	totalPut, totalAppend, conflicts := 0, 0, 0
	for i, out := range runChildren(t, path, 3, rounds) {
		var won, appended, lost int
		_, err := fmt.Sscanf(out, "won %d %d %d", &won, &appended, &lost)
		require.NoError(t, err, "child %d output: %s", i, out)
		t.Logf("child %d won %d checkpoints and %d turns, lost %d races", i, won, appended, lost)
		totalPut += won
		totalAppend += appended
		conflicts += lost
	}
	require.Positive(t, conflicts, "the writers raced")
	require.Equal(t, rounds, totalPut, "each Seq was won by exactly one process")
	require.Equal(t, rounds, totalAppend, "each turn was appended by exactly one process")

	ctx := context.Background()
	all, err := s.List(ctx, "shared")
	require.NoError(t, err)
	require.Len(t, all, rounds)
	for i, cp := range all {
		require.Equal(t, int64(i+1), cp.Seq)
	}
	sess, err := OpenSessions(ctx, path)
	require.NoError(t, err)
	defer sess.Close()
	turns, err := sess.Load(ctx, "shared")
	require.NoError(t, err)
	require.Len(t, turns, rounds)
}

// TestProcessesOpenNewFile opens one new file from several processes at
// once: exactly one creates the schema and every one can use it.
func TestProcessesOpenNewFile(t *testing.T) {
	if testing.Short() {
		t.Skip("starts child processes")
	}
	path := filepath.Join(t.TempDir(), "new.db")
	runChildren(t, path, 3, 3)
	s := openAt(t, path)
	all, err := s.List(context.Background(), "shared")
	require.NoError(t, err)
	require.Len(t, all, 3)
}

func openAt(t *testing.T, path string) *Store {
	t.Helper()
	s, err := Open(context.Background(), path)
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, s.Close()) })
	return s
}

// runChildren starts n writer processes (this test binary, re-executed) on
// the file at path, waits for them and returns their outputs.
func runChildren(t *testing.T, path string, n, rounds int) []string {
	t.Helper()
	goFile := filepath.Join(t.TempDir(), "go")
	var children []*exec.Cmd
	var outputs []*bytes.Buffer
	for i := range n {
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), childDBEnv+"="+path, fmt.Sprintf("%s=w%d", childNameEnv, i),
			fmt.Sprintf("%s=%d", childRoundsEnv, rounds), childGoEnv+"="+goFile)
		out := &bytes.Buffer{}
		cmd.Stdout, cmd.Stderr = out, out
		require.NoError(t, cmd.Start())
		children, outputs = append(children, cmd), append(outputs, out)
	}
	ready := func() bool { r, _ := filepath.Glob(goFile + ".ready.*"); return len(r) == n }
	for deadline := time.Now().Add(time.Minute); !ready(); time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			break // a child failed to start; Wait below reports it
		}
	}
	require.NoError(t, os.WriteFile(goFile, nil, 0o600))
	var outs []string
	for i, c := range children {
		require.NoError(t, c.Wait(), "child %d: %s", i, outputs[i])
		outs = append(outs, outputs[i].String())
	}
	return outs
}
