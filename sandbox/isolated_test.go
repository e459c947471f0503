package sandbox

import (
	"context"
	"encoding/json"
	"os"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func newTestIsolated(t *testing.T, cfg IsolatedConfig) *Isolated {
	t.Helper()
	e, err := NewIsolated(cfg)
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, e.Close()) })
	return e
}

// livePIDs are the pids of the executor's worker processes.
func livePIDs(e *Isolated) []int { return e.pool.PIDs() }

// requireWorks checks that e runs a snippet to its value.
func requireWorks(t *testing.T, e Executor) {
	t.Helper()
	var res *Result
	var err error
	// Several tests give e a time limit of a few hundred milliseconds. On
	// a machine running packages in parallel under -race, a fresh worker
	// can wait that long for a CPU: a timeout is tried again, twice; any
	// other error, or a third timeout, fails.
	for range 3 {
		if res, err = e.Run(context.Background(), `[1, 2].map(x => x * 21).pop()`); ErrorKind(err) != KindTimeout {
			break
		}
	}
	require.NoError(t, err)
	require.Equal(t, "42", string(res.Value))
}

func TestIsolatedRuns(t *testing.T) {
	at := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
	e := newTestIsolated(t, IsolatedConfig{Concurrency: 1, FixedTime: at, RandSeed: 1})
	require.Contains(t, []string{"rlimit", "cgroup", "none"}, e.MemoryEnforcement())
	res, err := e.Run(context.Background(), `console.warn("w"); ({now: new Date(), big: 10n, m: new Map([[1, 2]])})`)
	require.NoError(t, err)
	require.JSONEq(t, `{"now":{"$date":"2030-01-01T00:00:00.000Z"},"big":{"$bigint":"10"},"m":{"$map":[[1,2]]}}`, string(res.Value))
	require.Equal(t, []LogLine{{Level: LevelWarn, Text: "w"}}, res.Logs)
	require.Positive(t, res.Duration)

	res, err = e.Run(context.Background(), `console.log("before"); null.x`)
	require.ErrorIs(t, err, ErrException)
	require.Contains(t, err.Error(), "at code.js:1:")
	require.Equal(t, []LogLine{{Level: LevelLog, Text: "before"}}, res.Logs)

	res, err = e.Run(context.Background(), `let x = 1`)
	require.NoError(t, err)
	require.True(t, res.Undefined)
}

func TestIsolatedWorkerEnvironmentIsScrubbed(t *testing.T) {
	t.Setenv("LOOM_TEST_SECRET_API_KEY", "sk-secret")
	e := newTestIsolated(t, IsolatedConfig{Concurrency: 1})
	pids := livePIDs(e)
	require.Len(t, pids, 1)
	env, err := os.ReadFile("/proc/" + itoa(pids[0]) + "/environ")
	if err != nil {
		t.Skip("no /proc here:", err)
	}
	require.NotContains(t, string(env), "sk-secret")
	require.Contains(t, string(env), "LOOM_SANDBOX_WORKER=1")
	vars := strings.Split(strings.TrimRight(string(env), "\x00"), "\x00")
	require.Len(t, vars, 5, "only the worker's own settings: %q", vars)
	require.Contains(t, vars, "TZ=UTC", "local time in a worker is UTC")
}

// TestIsolatedWorkerKilledMidRun kills the worker while it runs code: the
// caller gets a worker-crashed error at once, and the pool recovers.
func TestIsolatedWorkerKilledMidRun(t *testing.T) {
	e := newTestIsolated(t, IsolatedConfig{Concurrency: 1, Limits: Limits{Timeout: 20 * time.Second}})
	requireWorks(t, e)
	pids := livePIDs(e)
	require.Len(t, pids, 1)
	time.AfterFunc(200*time.Millisecond, func() { _ = syscall.Kill(pids[0], syscall.SIGKILL) })
	start := time.Now()
	_, err := e.Run(context.Background(), `for(;;){}`)
	require.Less(t, time.Since(start), 5*time.Second)
	require.ErrorIs(t, err, ErrWorkerCrashed)
	require.Contains(t, err.Error(), "killed by signal")
	require.Contains(t, err.Error(), "A fresh worker was started")
	requireWorks(t, e)
	require.NotEqual(t, pids, livePIDs(e))
}

func TestIsolatedHardDeadlineKillsWorker(t *testing.T) {
	e := newTestIsolated(t, IsolatedConfig{Concurrency: 1, Limits: Limits{Timeout: 200 * time.Millisecond, Grace: 200 * time.Millisecond}})
	start := time.Now()
	// A backtracking regular expression ignores interrupts.
	_, err := e.Run(context.Background(), `/^(a+)+(?=b)/.test('a'.repeat(40)+'c')`)
	require.ErrorIs(t, err, ErrTimeout)
	require.Less(t, time.Since(start), 200*time.Millisecond+200*time.Millisecond+killMargin+2*time.Second)
	requireWorks(t, e)
}

func TestIsolatedContext(t *testing.T) {
	e := newTestIsolated(t, IsolatedConfig{Concurrency: 1})
	ctx, cancel := context.WithTimeout(context.Background(), 150*time.Millisecond)
	defer cancel()
	_, err := e.Run(ctx, `for(;;){}`)
	require.ErrorIs(t, err, ErrTimeout)
	require.ErrorIs(t, err, context.DeadlineExceeded)

	ctx, cancel = context.WithCancel(context.Background())
	time.AfterFunc(100*time.Millisecond, cancel)
	_, err = e.Run(ctx, `for(;;){}`)
	require.ErrorIs(t, err, context.Canceled)
	requireWorks(t, e)
}

func TestIsolatedConcurrentRuns(t *testing.T) {
	e := newTestIsolated(t, IsolatedConfig{Concurrency: 2})
	var wg sync.WaitGroup
	errs := make(chan error, 16)
	for i := 0; i < 16; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			res, err := e.Run(context.Background(), `const seen = typeof globalThis.mark; globalThis.mark = 1; seen`)
			if err == nil && string(res.Value) != `"undefined"` {
				err = &Error{Kind: KindInternal, Message: "state leaked: " + string(res.Value)}
			}
			errs <- err
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		require.NoError(t, err)
	}
}

func TestIsolatedClose(t *testing.T) {
	e, err := NewIsolated(IsolatedConfig{Concurrency: 2, Limits: Limits{Timeout: 20 * time.Second}})
	require.NoError(t, err)
	done := make(chan error, 1)
	go func() {
		_, err := e.Run(context.Background(), `for(;;){}`)
		done <- err
	}()
	time.Sleep(200 * time.Millisecond)
	require.NoError(t, e.Close())
	require.ErrorIs(t, <-done, ErrClosed)
	_, err = e.Run(context.Background(), `1`)
	require.ErrorIs(t, err, ErrClosed)
	require.Empty(t, livePIDs(e))
	require.NoError(t, e.Close(), "Close is idempotent")
}

func TestIsolatedBadWorkerCommand(t *testing.T) {
	_, err := NewIsolated(IsolatedConfig{WorkerCommand: []string{"/bin/true"}, StartTimeout: 5 * time.Second})
	require.ErrorContains(t, err, "ServeWorkerIfChild")

	_, err = NewIsolated(IsolatedConfig{WorkerCommand: []string{"/nonexistent/loom-jsworker"}})
	require.ErrorContains(t, err, "start worker")

	_, err = NewIsolated(IsolatedConfig{CgroupParent: "/nonexistent/cgroup"})
	require.ErrorContains(t, err, "cgroup")
}

func TestIsolatedWorkerCommand(t *testing.T) {
	exe, err := os.Executable()
	require.NoError(t, err)
	e := newTestIsolated(t, IsolatedConfig{WorkerCommand: []string{exe}, Concurrency: 1})
	requireWorks(t, e)
}

// TestIsolatedBackgroundStart: NewIsolated returns before the first worker
// is ready; the first run waits for it, and the executor reports what a
// synchronously started one does.
func TestIsolatedBackgroundStart(t *testing.T) {
	e := newTestIsolated(t, IsolatedConfig{Concurrency: 1, BackgroundStart: true})
	requireWorks(t, e)
	sync := newTestIsolated(t, IsolatedConfig{Concurrency: 1})
	ns, why := e.Namespaces()
	wantNS, wantWhy := sync.Namespaces()
	require.Equal(t, wantNS, ns)
	require.Equal(t, wantWhy, why)
	filtered, why := e.Seccomp()
	wantFiltered, wantWhy := sync.Seccomp()
	require.Equal(t, wantFiltered, filtered)
	require.Equal(t, wantWhy, why)
}

// TestIsolatedBackgroundStartGrowsOnDemand: a background-started pool
// starts one worker, however high its concurrency, and one more only when
// a run finds every worker busy.
func TestIsolatedBackgroundStartGrowsOnDemand(t *testing.T) {
	e := newTestIsolated(t, IsolatedConfig{Concurrency: 2, BackgroundStart: true})
	for range 3 {
		requireWorks(t, e)
	}
	require.Len(t, livePIDs(e), 1, "runs one at a time need one worker")

	entered, release := make(chan struct{}), make(chan struct{})
	box, err := NewToolbox([]HostTool{{Name: "hold", Call: func(ctx context.Context, _ json.RawMessage) (json.RawMessage, error) {
		close(entered)
		select {
		case <-release:
		case <-ctx.Done():
		}
		return json.RawMessage(`1`), nil
	}}}, CallLimits{})
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute) // a hang guard
	defer cancel()
	held := make(chan error, 1)
	go func() {
		_, err := e.RunWithTools(ctx, `await tools.hold({})`, box)
		held <- err
	}()
	select {
	case <-entered:
	case <-ctx.Done():
		t.Fatal("the holding run never called its tool")
	}
	res, err := e.Run(ctx, `6 * 7`)
	require.NoError(t, err, "a run beside a busy worker gets a new one")
	require.Equal(t, "42", string(res.Value))
	close(release)
	require.NoError(t, <-held)
	require.Len(t, livePIDs(e), 2)
	for range 3 {
		requireWorks(t, e)
	}
	require.Len(t, livePIDs(e), 2, "runs that find a worker idle start none")
}

// TestIsolatedBackgroundStartFailure: a worker that cannot start fails the
// runs, at once and saying why, instead of NewIsolated.
func TestIsolatedBackgroundStartFailure(t *testing.T) {
	e, err := NewIsolated(IsolatedConfig{WorkerCommand: []string{"/bin/true"}, StartTimeout: 5 * time.Second, BackgroundStart: true})
	require.NoError(t, err)
	defer e.Close()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute) // a hang guard
	defer cancel()
	for range 2 {
		_, err = e.Run(ctx, `1`)
		require.ErrorContains(t, err, "could not start")
		require.ErrorContains(t, err, "ServeWorkerIfChild")
		require.NoError(t, ctx.Err(), "the run must fail when the start does, not wait for its context")
	}
}

// TestIsolatedBackgroundStartClose: closing before the first worker is
// ready ends the start and fails later runs with ErrClosed.
func TestIsolatedBackgroundStartClose(t *testing.T) {
	e, err := NewIsolated(IsolatedConfig{Concurrency: 2, BackgroundStart: true})
	require.NoError(t, err)
	require.NoError(t, e.Close())
	_, err = e.Run(context.Background(), `1`)
	require.ErrorIs(t, err, ErrClosed)
}
