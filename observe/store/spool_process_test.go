package store_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/loomwork/loom/internal/testkit"
	"github.com/loomwork/loom/observe/store"
	"github.com/stretchr/testify/require"
)

// Environment of a child spool writer (see childSpooler).
const (
	childSpoolEnv     = "LOOM_STORE_TEST_SPOOL_DB"
	childSpoolSeedEnv = "LOOM_STORE_TEST_SPOOL_SEED"
	childSpoolRunsEnv = "LOOM_STORE_TEST_SPOOL_RUNS"
	childSpoolGoEnv   = "LOOM_STORE_TEST_SPOOL_GO"
	// childSpoolHangEnv makes the child wait to be killed once it has
	// written its runs, instead of closing its spool.
	childSpoolHangEnv = "LOOM_STORE_TEST_SPOOL_HANG"
	// childReaderEnv makes the child a reader of the database it names,
	// listing runs as a viewer polls until the file childSpoolGoEnv names
	// with ".stop" appended exists.
	childReaderEnv = "LOOM_STORE_TEST_SPOOL_READER"
)

// childReader is the body of a reader process (see childReaderEnv); it
// prints how many lists it made.
func childReader(path string) int {
	ctx := context.Background()
	s, err := store.Open(ctx, store.Config{Path: path})
	if err != nil {
		fmt.Fprintln(os.Stderr, "child reader:", err)
		return 1
	}
	defer s.Close()
	fmt.Println("reading")
	stop := os.Getenv(childSpoolGoEnv) + ".stop"
	for n, deadline := 0, time.Now().Add(2*time.Minute); ; n++ {
		if _, err := s.Traces(ctx, store.Query{}); err != nil {
			fmt.Fprintln(os.Stderr, "child reader:", err)
			return 1
		}
		if _, err := os.Stat(stop); err == nil {
			fmt.Printf("lists %d\n", n+1)
			return 0
		}
		if time.Now().After(deadline) {
			fmt.Fprintln(os.Stderr, "child reader: no stop signal within two minutes")
			return 1
		}
	}
}

// childSpooler is the body of a spool writer process: once the go file
// exists it writes its runs through a Spool, one write each, then says so
// on stdout and either closes the spool or waits to be killed.
func childSpooler(path string) int {
	seed, err1 := strconv.ParseUint(os.Getenv(childSpoolSeedEnv), 10, 64)
	runs, err2 := strconv.Atoi(os.Getenv(childSpoolRunsEnv))
	if err1 != nil || err2 != nil {
		fmt.Fprintln(os.Stderr, "child spooler: bad seed or runs", err1, err2)
		return 2
	}
	ctx := context.Background()
	sp, err := store.OpenSpool(ctx, store.Config{Path: path})
	if err != nil {
		fmt.Fprintln(os.Stderr, "child spooler:", err)
		return 1
	}
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(time.Millisecond) {
		if _, err := os.Stat(os.Getenv(childSpoolGoEnv)); err == nil {
			break
		}
		if time.Now().After(deadline) {
			fmt.Fprintln(os.Stderr, "child spooler: no go signal within a minute")
			return 1
		}
	}
	for _, p := range spoolRuns(seed, runs) {
		if err := sp.WriteParts(ctx, []store.Part{p}); err != nil {
			fmt.Fprintln(os.Stderr, "child spooler:", err)
			return 1
		}
	}
	fmt.Println("written")
	if os.Getenv(childSpoolHangEnv) != "" {
		time.Sleep(time.Hour) // until killed
	}
	if err := sp.Close(); err != nil {
		fmt.Fprintln(os.Stderr, "child spooler:", err)
		return 1
	}
	return 0
}

// startSpooler starts a child spool writer of runs runs from seed.
func startSpooler(t *testing.T, path, goFile string, seed uint64, runs int, hang bool) (*exec.Cmd, *testkit.SyncBuffer) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(),
		childSpoolEnv+"="+path,
		fmt.Sprintf("%s=%d", childSpoolSeedEnv, seed),
		fmt.Sprintf("%s=%d", childSpoolRunsEnv, runs),
		childSpoolGoEnv+"="+goFile)
	if hang {
		cmd.Env = append(cmd.Env, childSpoolHangEnv+"=1")
	}
	out := &testkit.SyncBuffer{}
	cmd.Stdout, cmd.Stderr = out, out
	require.NoError(t, cmd.Start())
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
		}
	})
	return cmd, out
}

// A writer killed with SIGKILL keeps what it wrote: once it is gone, the
// next reader stores its spool file, which never got its final name.
func TestSpoolOfAKilledWriterIsStored(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a child process")
	}
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "traces.db")
	goFile := filepath.Join(t.TempDir(), "go")
	require.NoError(t, os.WriteFile(goFile, nil, 0o600))
	cmd, out := startSpooler(t, path, goFile, 900, 4, true)
	require.Eventually(t, func() bool { return strings.Contains(out.String(), "written") },
		time.Minute, 5*time.Millisecond, "the child did not write: %s", out)

	// While it lives, its file is read but stays its own.
	viewer, err := store.Open(ctx, store.Config{Path: path})
	require.NoError(t, err)
	defer viewer.Close()
	require.Len(t, contents(t, viewer), 4)
	names := spoolFiles(t, path)
	require.Len(t, names, 1)
	require.True(t, strings.HasSuffix(names[0], ".live"), names)

	require.NoError(t, cmd.Process.Signal(syscall.SIGKILL))
	_ = cmd.Wait()
	require.Equal(t, names, spoolFiles(t, path), "a killed writer leaves its file unfinished")

	other, err := store.Open(ctx, store.Config{Path: path})
	require.NoError(t, err)
	defer other.Close()
	require.Empty(t, spoolFiles(t, path), "the dead writer's file is stored and removed")
	got := contents(t, other)
	require.Len(t, got, 4)
	require.Equal(t, contents(t, viewer), got, "each span once")
	spans, parts := counts(t, path)
	require.Equal(t, 4*6, spans)
	require.Equal(t, 4, parts)
}

// Writer processes spooling at once (one of them killed once it has
// written) while three readers list runs, one in a process of its own:
// every run is stored once, the counters agree and the database is sound.
func TestSpoolConcurrentWritersAndReaders(t *testing.T) {
	if testing.Short() {
		t.Skip("starts child processes")
	}
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "traces.db")
	goFile := filepath.Join(t.TempDir(), "go")
	const writers, runs = 4, 30
	var cmds []*exec.Cmd
	var outs []*testkit.SyncBuffer
	for i := range writers {
		cmd, out := startSpooler(t, path, goFile, uint64(1000*(i+1)), runs, i == writers-1)
		cmds, outs = append(cmds, cmd), append(outs, out)
	}
	readers := make([]*store.Store, 2)
	for i := range readers {
		s, err := store.Open(ctx, store.Config{Path: path})
		require.NoError(t, err)
		defer s.Close()
		readers[i] = s
	}
	// A third reader in a process of its own, as loom observe would be.
	reader := exec.Command(os.Args[0], "-test.run=^$")
	reader.Env = append(os.Environ(), childReaderEnv+"="+path, childSpoolGoEnv+"="+goFile)
	readerOut := &testkit.SyncBuffer{}
	reader.Stdout, reader.Stderr = readerOut, readerOut
	require.NoError(t, reader.Start())
	t.Cleanup(func() {
		if reader.ProcessState == nil {
			_ = reader.Process.Kill()
			_ = reader.Wait()
		}
	})
	require.Eventually(t, func() bool { return strings.Contains(readerOut.String(), "reading") },
		time.Minute, 5*time.Millisecond, "the reader did not start: %s", readerOut)
	require.NoError(t, os.WriteFile(goFile, nil, 0o600))

	stop := make(chan struct{})
	errs := make(chan error, len(readers))
	var listed [2]int
	for i, s := range readers {
		go func() {
			for {
				if _, err := s.Traces(ctx, store.Query{}); err != nil {
					errs <- err
					return
				}
				listed[i]++
				select {
				case <-stop:
					errs <- nil
					return
				default:
				}
			}
		}()
	}
	for i, cmd := range cmds[:writers-1] {
		require.NoError(t, cmd.Wait(), "writer %d: %s", i, outs[i])
	}
	last := cmds[writers-1]
	require.Eventually(t, func() bool { return strings.Contains(outs[writers-1].String(), "written") },
		time.Minute, 5*time.Millisecond, "the last writer did not write: %s", outs[writers-1])
	require.NoError(t, last.Process.Signal(syscall.SIGKILL))
	_ = last.Wait()
	close(stop)
	for range readers {
		require.NoError(t, <-errs)
	}
	require.Positive(t, listed[0]+listed[1])
	require.NoError(t, os.WriteFile(goFile+".stop", nil, 0o600))
	require.NoError(t, reader.Wait(), "reader: %s", readerOut)
	require.Contains(t, readerOut.String(), "lists ")

	// One more list stores what the readers had not yet seen.
	page, err := readers[0].Traces(ctx, store.Query{Limit: store.MaxLimit})
	require.NoError(t, err)
	require.Empty(t, spoolFiles(t, path))
	require.Len(t, page.Traces, writers*runs)
	for _, tr := range page.Traces {
		require.Equal(t, int64(6), tr.Spans, tr.TraceID)
	}
	spans, parts := counts(t, path)
	require.Equal(t, writers*runs*6, spans)
	require.Equal(t, writers*runs, parts)
	require.Equal(t, contents(t, readers[0]), contents(t, readers[1]))
}
