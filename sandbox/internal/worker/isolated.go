package worker

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/loomwork/loom/sandbox/internal/jsrt"
)

// Worker process settings.
const (
	// workerMaxStack is the worker's Go stack limit: far below the default
	// 1 GB, so that a runaway native recursion kills the worker quickly, as a
	// stack overflow rather than by the memory limit its stack would pass.
	workerMaxStack = 32 << 20
	// KillMargin is how long the parent waits, after the time limit and the
	// grace period, for the worker's own reply before it kills the worker.
	KillMargin = 500 * time.Millisecond
	// stderrTail is how much of a worker's stderr is kept to explain a crash.
	stderrTail = 8 << 10
	// replyBuffer is how many lines of a worker may wait to be read: its
	// reply and the tool calls it may have in flight at once.
	replyBuffer = jsrt.MaxInFlightCeiling + 4
)

// Isolated runs code in a pool of worker processes, each running the same
// hardened runner as [jsrt.InProcess] under operating-system limits: a
// cgroup v2 memory.max where one is delegated (see
// [github.com/loomwork/loom/sandbox.IsolatedConfig.CgroupParent]), otherwise
// RLIMIT_AS set to the worker's measured address space plus a budget; plus
// GOMEMLIMIT, a lowered Go stack limit, and a SIGKILL from the parent when a
// run passes its time limit plus grace. A worker that dies or is killed is
// replaced, and the run gets an error (KindWorkerCrashed or KindTimeout).
//
// Isolated re-executes the program's own binary, so main must call
// [ServeWorkerIfChild] first, or
// [github.com/loomwork/loom/sandbox.IsolatedConfig.WorkerCommand] must name a worker
// binary. It is safe for concurrent use; Close kills the workers.
type Isolated struct {
	cfg      *jsrt.Config
	path     string
	args     []string
	env      []string
	settings workerSettings
	cgroups  *cgroupPool

	idle    chan *worker
	closing chan struct{}
	closed  atomic.Bool
	once    sync.Once
	wg      sync.WaitGroup

	mu       sync.Mutex
	live     map[*worker]struct{}
	spawnErr error
	// slots counts the concurrency slots given a worker so far, when the
	// pool grows on demand (Config.BackgroundStart); under mu.
	slots int

	// started is closed once the first worker has started, or failed to
	// (startErr, set before).
	started  chan struct{}
	startErr error

	// namespaces says whether workers start in their own namespaces, or
	// why not.
	namespaces   bool
	namespacesNo string
	// unfiltered is why the first worker runs without its system call
	// filter ("" when it has it).
	unfiltered     string
	unfilteredOnce sync.Once

	nextID atomic.Uint64
}

var _ jsrt.Executor = (*Isolated)(nil)

// NewIsolated starts a pool of worker processes (one per concurrency slot,
// see [github.com/loomwork/loom/sandbox.IsolatedConfig.Concurrency]). It waits for the first worker to be ready, so a
// misconfiguration fails here; the others start in the background. With
// Config.BackgroundStart it returns at once and the first worker starts in
// the background too; the first run waits for it, and fails if it could
// not start. Such a pool also grows on demand: a run that finds every
// worker busy starts one more, up to the concurrency, and takes the first
// that is free, so a program that runs one snippet at a time (a one-shot
// CLI) starts one worker, not one per core.
func NewIsolated(c jsrt.Config) (*Isolated, error) {
	cfg, err := c.WithDefaults()
	if err != nil {
		return nil, err
	}
	e := &Isolated{
		cfg:     cfg,
		path:    cfg.WorkerPath,
		args:    cfg.WorkerArgs,
		idle:    make(chan *worker, cfg.Concurrency),
		closing: make(chan struct{}),
		live:    map[*worker]struct{}{},
	}
	if e.path == "" {
		if !hookInstalled.Load() {
			return nil, errors.New("sandbox: NewIsolated re-executes this program as its worker, and this program never called sandbox.ServeWorkerIfChild(): call it first thing in main (or TestMain), or use WithWorkerCommand to name a worker binary")
		}
		if e.path, err = os.Executable(); err != nil {
			return nil, fmt.Errorf("sandbox: find this program's binary to start workers: %w", err)
		}
	}
	mem := cfg.Limits.Memory
	e.settings = workerSettings{Memory: mem, MaxStack: workerMaxStack,
		Expect: &request{Limits: cfg.Limits, FixedTime: cfg.FixedTime, RandSeed: cfg.RandSeed}}
	if !cfg.DisableCgroup {
		if dir := findCgroupParent(cfg.CgroupParent); dir != "" {
			e.cgroups = &cgroupPool{dir: dir}
		} else if cfg.CgroupParent != "" {
			return nil, fmt.Errorf("sandbox: CgroupParent %q is not a writable cgroup v2 directory with the memory controller enabled in cgroup.subtree_control", cfg.CgroupParent)
		}
	}
	if e.cgroups == nil && !RaceEnabled {
		e.settings.AddressSpace = true
		e.settings.AddressBudget = 2*mem + 2*workerMaxStack + 256<<20
	}
	if cfg.WorkerPath == "" { // a worker command may be a wrapper that forks
		e.settings.Parent = os.Getpid()
	}
	e.settings.Dir = os.TempDir()
	e.started = make(chan struct{})
	if cfg.BackgroundStart {
		e.slots = 1
		e.wg.Add(1)
		go func() {
			defer e.wg.Done()
			defer close(e.started)
			w, err := e.startFirst()
			if err != nil {
				e.startErr = err
				return
			}
			e.release(w)
		}()
		return e, nil
	}
	w, err := e.startFirst()
	close(e.started)
	if err != nil {
		_ = e.Close()
		return nil, err
	}
	e.idle <- w
	for i := 1; i < cfg.Concurrency; i++ {
		e.replace()
	}
	return e, nil
}

// Limits returns the limits every run gets.
func (e *Isolated) Limits() jsrt.Limits { return e.cfg.Limits }

// workerEnv is a worker's whole environment.
func (e *Isolated) workerEnv() []string {
	ws, _ := json.Marshal(e.settings)
	return append([]string{
		workerEnvKey + "=" + workerEnvValue,
		workerConfigEnv + "=" + string(ws),
		"GOMEMLIMIT=" + strconv.FormatInt(e.cfg.Limits.Memory+32<<20, 10),
		"GOMAXPROCS=1",
		// Local time is UTC: the host's zone does not show to the code.
		"TZ=UTC",
	}, e.cfg.WorkerEnv...)
}

// startFirst starts the first worker, in its own namespaces unless they
// are turned off: it is also the probe of whether the kernel allows them,
// so no extra process starts on the way to the first run. When the kernel
// refuses them, the workers run without, and the executor says so once,
// through slog and [Isolated.Namespaces].
func (e *Isolated) startFirst() (*worker, error) {
	switch {
	case e.cfg.DisableNS:
		e.namespacesNo = "turned off by WithoutNamespaces"
	case workerCloneFlags == 0:
		e.namespacesNo = "namespaces are Linux only"
	default:
		e.namespaces = true
	}
	e.settings.Namespaces = e.namespaces
	e.env = e.workerEnv()
	w, err := e.spawn()
	if err == nil || !e.namespaces || !namespacesRefused(err) {
		return w, err
	}
	e.namespaces, e.settings.Namespaces = false, false
	e.namespacesNo = err.Error()
	slog.Warn("sandbox: the kernel refused the workers their own user, network, mount and PID namespaces; they run in the host's, with the other limits", "reason", e.namespacesNo)
	e.env = e.workerEnv()
	return e.spawn()
}

// namespacesRefused reports whether a worker failed to start because the
// kernel refused it its namespaces: the clone failed, or the worker could
// not confine itself to an empty root.
func namespacesRefused(err error) bool {
	var errno syscall.Errno
	if errors.As(err, &errno) {
		return errno == syscall.EPERM || errno == syscall.EINVAL || errno == syscall.ENOSPC || errno == syscall.EUSERS
	}
	return strings.Contains(err.Error(), "confine")
}

// waitStarted waits until the first worker has started or failed to.
func (e *Isolated) waitStarted(ctx context.Context) error {
	select {
	case <-e.started:
	case <-ctx.Done():
		return ctx.Err()
	case <-e.closing:
		return jsrt.ErrClosed
	}
	if e.startErr != nil {
		return &jsrt.Error{Kind: jsrt.KindInternal, Message: "The sandbox's first worker process could not start, so no code can run: " + e.startErr.Error()}
	}
	return nil
}

// Seccomp reports whether the workers run under their system call filter
// (a seccomp allowlist of what the Go runtime needs), and when not, why.
func (e *Isolated) Seccomp() (bool, string) {
	<-e.started // set by the first worker's ready reply
	return e.unfiltered == "", e.unfiltered
}

// Namespaces reports whether the workers run in their own user, network,
// mount and PID namespaces with an empty read-only root, and when not,
// why.
func (e *Isolated) Namespaces() (bool, string) {
	<-e.started
	return e.namespaces, e.namespacesNo
}

// MemoryEnforcement says how the workers' memory is capped by the
// operating system: "cgroup", "rlimit", or "none" (in binaries built with
// -race, whose shadow memory rules out RLIMIT_AS; GOMEMLIMIT and the heap
// watchdog still apply).
func (e *Isolated) MemoryEnforcement() string {
	switch {
	case e.cgroups != nil:
		return "cgroup"
	case e.settings.AddressSpace:
		return "rlimit"
	default:
		return "none"
	}
}

// Run runs code in an idle worker, waiting for one first (the wait counts
// against ctx, not against the time limit).
func (e *Isolated) Run(ctx context.Context, code string) (*jsrt.Result, error) {
	return e.run(ctx, code, nil)
}

// run runs code in a worker; box, when set, offers its tools to the code,
// each call running here (hosttools_wire.go).
func (e *Isolated) run(ctx context.Context, code string, box *jsrt.Toolbox) (*jsrt.Result, error) {
	if e.closed.Load() {
		return nil, jsrt.ErrClosed
	}
	start := time.Now()
	lim := e.cfg.Limits
	if err := ctx.Err(); err != nil {
		return &jsrt.Result{}, jsrt.ContextError(err, lim.Timeout)
	}
	if _, err := jsrt.Admit(code, lim); err != nil {
		return &jsrt.Result{Duration: time.Since(start)}, err
	}
	w, err := e.acquire(ctx, start)
	if err != nil {
		return &jsrt.Result{Duration: time.Since(start)}, err
	}
	timeout, byCtx := jsrt.EffectiveTimeout(ctx, lim.Timeout)
	req := request{ID: e.nextID.Add(1), Code: code, Limits: lim, FixedTime: e.cfg.FixedTime, RandSeed: e.cfg.RandSeed}
	req.Limits.Timeout = max(timeout, time.Millisecond)
	runStart := time.Now()
	var calls *hostCalls
	if box != nil {
		// The calls end when the run is over (the worker stops it at its
		// time limit); their deadline, the run's plus grace, is a bound the
		// tools see (and pass on).
		callCtx, cancel := context.WithDeadline(ctx, runStart.Add(timeout+lim.Grace))
		calls = &hostCalls{tr: jsrt.NewToolRun(callCtx, box, lim), cancel: cancel}
		defer calls.end(lim.Grace)
		req.Tools, req.Calls = jsrt.ToolNames(box), box.Limits()
	}
	if err := w.send(req); err != nil {
		<-w.exited
		return &jsrt.Result{Duration: time.Since(start)}, e.lost(w, runStart)
	}
	hard := time.NewTimer(timeout + lim.Grace + KillMargin)
	defer hard.Stop()
	for {
		select {
		case rep := <-w.replies:
			if rep.Call != nil && (calls == nil || rep.ID != req.ID || !calls.serve(w, req.ID, rep.Call)) {
				w.kill()
				<-w.exited
				e.retire(w)
				return &jsrt.Result{Duration: time.Since(start)}, &jsrt.Error{Kind: jsrt.KindInternal, Message: "Internal sandbox error: the worker made a tool call that was not allowed (for another run, or past the run's call limits); it was replaced. Run the code again."}
			}
			if rep.Call != nil {
				continue
			}
			if rep.ID != req.ID {
				w.kill()
				<-w.exited
				e.retire(w)
				return &jsrt.Result{Duration: time.Since(start)}, &jsrt.Error{Kind: jsrt.KindInternal, Message: "Internal sandbox error: the worker answered out of turn; it was replaced. Run the code again."}
			}
			if rep.Exiting {
				e.retire(w)
			} else {
				e.release(w)
			}
			if rep.Error == nil && rep.Result != nil {
				rep.Result.Duration = time.Since(start)
				if rep.Result.Logs == nil {
					rep.Result.Logs = []jsrt.LogLine{}
				}
				return rep.Result, nil
			}
			res := &jsrt.Result{Logs: rep.Logs, Duration: time.Since(start)}
			if rep.Error == nil {
				return res, &jsrt.Error{Kind: jsrt.KindInternal, Message: "Internal sandbox error: the worker sent an empty reply. Run the code again."}
			}
			if rep.Error.Kind == jsrt.KindTimeout && byCtx {
				jsrt.SetCause(rep.Error, context.DeadlineExceeded)
			}
			return res, rep.Error
		case <-w.exited:
			return &jsrt.Result{Duration: time.Since(start)}, e.lost(w, runStart)
		case <-hard.C:
			w.kill()
			<-w.exited
			e.retire(w)
			var cause error
			if byCtx {
				cause = context.DeadlineExceeded
			}
			return &jsrt.Result{Duration: time.Since(start)}, jsrt.TimeoutError(timeout, cause, true)
		case <-ctx.Done():
			w.kill()
			<-w.exited
			e.retire(w)
			return &jsrt.Result{Duration: time.Since(start)}, jsrt.ContextError(ctx.Err(), timeout)
		}
	}
}

// acquire takes an idle, live worker.
func (e *Isolated) acquire(ctx context.Context, start time.Time) (*worker, error) {
	if err := e.waitStarted(ctx); err != nil {
		if ctx.Err() != nil {
			return nil, jsrt.ContextError(ctx.Err(), e.cfg.Limits.Timeout)
		}
		return nil, err
	}
	for {
		select {
		case w := <-e.idle:
			if w = e.alive(w); w != nil {
				return w, nil
			}
			continue
		default:
		}
		e.grow()
		select {
		case w := <-e.idle:
			if w = e.alive(w); w != nil {
				return w, nil
			}
		case <-ctx.Done():
			err := jsrt.ContextError(ctx.Err(), e.cfg.Limits.Timeout)
			e.mu.Lock()
			if e.spawnErr != nil {
				err.Message += fmt.Sprintf(" No sandbox worker was available after %s; the last worker start failed: %v", time.Since(start).Round(time.Millisecond), e.spawnErr)
			}
			e.mu.Unlock()
			return nil, err
		case <-e.closing:
			return nil, jsrt.ErrClosed
		}
	}
}

// alive returns w, or nil after retiring it when it died while idle.
func (e *Isolated) alive(w *worker) *worker {
	select {
	case <-w.exited:
		e.retire(w)
		return nil
	default:
		return w
	}
}

// grow starts one more worker when the pool grows on demand and has a
// slot without one; a run that found no idle worker calls it.
func (e *Isolated) grow() {
	if !e.cfg.BackgroundStart {
		return
	}
	e.mu.Lock()
	more := e.slots < e.cfg.Concurrency
	if more {
		e.slots++
	}
	e.mu.Unlock()
	if more {
		e.replace()
	}
}

// release returns a worker to the pool, or stops it when the executor is
// closed.
func (e *Isolated) release(w *worker) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.closed.Load() {
		w.kill()
		return
	}
	e.idle <- w
}

// lost is the error for a worker that died during a run; it replaces the
// worker.
func (e *Isolated) lost(w *worker, runStart time.Time) error {
	e.retire(w)
	if e.closed.Load() {
		return jsrt.ErrClosed
	}
	return w.crashError(e.cfg.Limits.Memory, time.Since(runStart))
}

// retire forgets a dead (or dying) worker and starts a replacement.
func (e *Isolated) retire(w *worker) {
	e.mu.Lock()
	delete(e.live, w)
	e.mu.Unlock()
	e.replace()
}

// replace starts a worker in the background, retrying with backoff, and
// puts it in the pool.
func (e *Isolated) replace() {
	if e.closed.Load() {
		return
	}
	e.wg.Add(1)
	go func() {
		defer e.wg.Done()
		backoff := 50 * time.Millisecond
		for {
			w, err := e.spawn()
			if err == nil {
				e.release(w)
				return
			}
			if errors.Is(err, jsrt.ErrClosed) {
				return
			}
			e.mu.Lock()
			e.spawnErr = err
			e.mu.Unlock()
			t := time.NewTimer(backoff)
			select {
			case <-t.C:
			case <-e.closing:
				t.Stop()
				return
			}
			backoff = min(2*backoff, 5*time.Second)
		}
	}()
}

// Close kills the workers and waits for them to exit. Runs in progress
// fail with ErrClosed.
func (e *Isolated) Close() error {
	e.once.Do(func() {
		e.mu.Lock()
		e.closed.Store(true)
		close(e.closing)
		for w := range e.live {
			w.kill()
		}
		e.mu.Unlock()
		e.wg.Wait()
		e.mu.Lock()
		clear(e.live)
		e.mu.Unlock()
		for {
			select {
			case <-e.idle:
			default:
				return
			}
		}
	})
	return nil
}

// worker is one worker process.
type worker struct {
	cmd     *exec.Cmd
	stdin   io.WriteCloser
	sendMu  sync.Mutex
	replies chan reply
	exited  chan struct{} // closed once the process is reaped
	stderr  *tailWriter
	cgroup  string
	killed  atomic.Bool

	// set before exited is closed
	waitErr error
	oom     bool
}

// spawn starts a worker and waits for it to be ready.
func (e *Isolated) spawn() (*worker, error) {
	if e.closed.Load() {
		return nil, jsrt.ErrClosed
	}
	cmd := exec.Command(e.path, e.args...)
	cmd.Env = e.env
	cmd.Dir = e.settings.Dir
	hardenCmd(cmd, e.namespaces)
	w := &worker{cmd: cmd, replies: make(chan reply, replyBuffer), exited: make(chan struct{}), stderr: &tailWriter{max: stderrTail}}
	cmd.Stderr = w.stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, fmt.Errorf("sandbox: start worker: %w", err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, fmt.Errorf("sandbox: start worker: %w", err)
	}
	w.stdin = stdin
	var closeFD func()
	if e.cgroups != nil {
		dir, err := e.cgroups.create(2*e.cfg.Limits.Memory + 64<<20)
		if err != nil {
			return nil, fmt.Errorf("sandbox: create the worker's cgroup: %w", err)
		}
		w.cgroup = dir
		if closeFD, err = startInCgroup(cmd, dir); err != nil {
			removeCgroup(dir)
			return nil, fmt.Errorf("sandbox: open the worker's cgroup: %w", err)
		}
	}
	e.mu.Lock()
	if e.closed.Load() {
		e.mu.Unlock()
		if w.cgroup != "" {
			closeFD()
			removeCgroup(w.cgroup)
		}
		return nil, jsrt.ErrClosed
	}
	err = cmd.Start()
	if closeFD != nil {
		closeFD()
	}
	if err != nil {
		e.mu.Unlock()
		if w.cgroup != "" {
			removeCgroup(w.cgroup)
		}
		return nil, fmt.Errorf("sandbox: start worker %s: %w", e.path, err)
	}
	e.live[w] = struct{}{}
	e.mu.Unlock()
	e.wg.Add(1)
	go func() {
		defer e.wg.Done()
		w.readLoop(stdout, maxLine(e.cfg.Limits))
	}()
	t := time.NewTimer(e.cfg.StartTimeout)
	defer t.Stop()
	select {
	case rep := <-w.replies:
		if rep.Ready && rep.Version == protocolVersion {
			e.unfilteredOnce.Do(func() {
				e.unfiltered = rep.Unfiltered
				if rep.Unfiltered != "" && !RaceEnabled {
					slog.Warn("sandbox: workers run without their system call filter", "reason", rep.Unfiltered)
				}
			})
			return w, nil
		}
		w.kill()
		<-w.exited
		e.forget(w)
		return nil, fmt.Errorf("sandbox: worker %s spoke an unknown protocol (version %d)", e.path, rep.Version)
	case <-w.exited:
		e.forget(w)
		return nil, fmt.Errorf("sandbox: worker %s exited before it was ready (%s); its main must call sandbox.ServeWorkerIfChild() first: %s",
			e.path, exitText(w.waitErr), strings.TrimSpace(w.stderr.String()))
	case <-t.C:
		w.kill()
		<-w.exited
		e.forget(w)
		return nil, fmt.Errorf("sandbox: worker %s was not ready within %s; its main must call sandbox.ServeWorkerIfChild() first", e.path, e.cfg.StartTimeout)
	case <-e.closing:
		w.kill()
		<-w.exited
		e.forget(w)
		return nil, jsrt.ErrClosed
	}
}

func (e *Isolated) forget(w *worker) {
	e.mu.Lock()
	delete(e.live, w)
	e.mu.Unlock()
}

// readLoop reads replies until the worker's stdout closes, then reaps it.
func (w *worker) readLoop(stdout io.Reader, max int) {
	r := bufio.NewReaderSize(stdout, 1<<16)
	for {
		line, err := readLine(r, max)
		if err != nil {
			if !errors.Is(err, io.EOF) {
				w.kill() // a line too long: the worker misbehaves
			}
			break
		}
		var rep reply
		if json.Unmarshal(line, &rep) != nil {
			w.kill()
			break
		}
		select {
		case w.replies <- rep:
		default: // nobody asked: the worker misbehaves
			w.kill()
		}
	}
	_, _ = io.Copy(io.Discard, r)
	w.waitErr = w.cmd.Wait()
	if w.cgroup != "" {
		w.oom = oomKilled(w.cgroup)
		removeCgroup(w.cgroup)
	}
	close(w.exited)
}

func (w *worker) send(req request) error {
	line, err := marshalLine(req)
	if err != nil {
		return err
	}
	w.sendMu.Lock() // the answers of a run's tool calls are written concurrently
	defer w.sendMu.Unlock()
	_, err = w.stdin.Write(line)
	return err
}

func (w *worker) kill() {
	w.killed.Store(true)
	if p := w.cmd.Process; p != nil {
		_ = p.Kill()
	}
}

// crashError explains a worker that died during a run. A death whose
// cause is known (the Go stack overflowed, memory ran out) gets that kind,
// with the crash as its cause (errors.Is matches ErrWorkerCrashed too), and
// a message without the Go runtime's report, which names nothing the code
// can act on.
func (w *worker) crashError(memLimit int64, ran time.Duration) *jsrt.Error {
	tail := w.stderr.String()
	crash := &jsrt.Error{Kind: jsrt.KindWorkerCrashed}
	var e *jsrt.Error
	switch {
	case isStackOverflowReport(tail):
		e = &jsrt.Error{Kind: jsrt.KindStackOverflow, Message: "RangeError: Maximum call stack size exceeded: the code recursed too deeply inside the engine's built-ins " +
			"(for example a method calling itself through toString, valueOf, a getter or toJSON, a long chain of Proxies, bound functions or prototypes, or deeply nested data). " +
			"Use loops and flatter data. The sandbox worker running it was stopped and a fresh one started."}
	case w.oom, strings.Contains(tail, "out of memory"), strings.Contains(tail, "cannot allocate memory"):
		e = jsrt.MemoryError(memLimit, nil)
		e.Message += " The sandbox worker running it was stopped and a fresh one started."
	}
	var b strings.Builder
	fmt.Fprintf(&b, "The sandbox worker process crashed after %s while running the code (%s", ran.Round(time.Millisecond), exitText(w.waitErr))
	if e == nil {
		if line := fatalLine(tail); line != "" {
			b.WriteString(": " + line)
		}
		b.WriteString("). A huge allocation, or a fault in the engine, can cause this: simplify the code and run it again. A fresh worker was started.")
		crash.Message = b.String()
		return crash
	}
	b.WriteString(").")
	crash.Message = b.String()
	jsrt.SetCause(e, crash)
	return e
}

// isStackOverflowReport reports whether a worker's stderr is the Go
// runtime's report of a goroutine stack overflow.
func isStackOverflowReport(tail string) bool {
	return strings.Contains(tail, "fatal error: stack overflow") || strings.Contains(tail, "goroutine stack exceeds")
}

// fatalLine is the first line of a Go crash report.
func fatalLine(tail string) string {
	for _, l := range strings.Split(tail, "\n") {
		l = strings.TrimSpace(l)
		if strings.HasPrefix(l, "fatal error:") || strings.HasPrefix(l, "runtime:") || strings.HasPrefix(l, "panic:") {
			return l
		}
	}
	return ""
}

// exitText describes how a process ended.
func exitText(err error) string {
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			return "killed by signal " + ws.Signal().String()
		}
		return fmt.Sprintf("exit status %d", ee.ExitCode())
	}
	if err != nil {
		return err.Error()
	}
	return "exit status 0"
}

// tailWriter keeps the first and the last max/2 bytes written to it: a Go
// crash report starts with the fatal error and ends with goroutine traces.
type tailWriter struct {
	mu         sync.Mutex
	max        int
	head, tail []byte
	cut        bool
}

func (t *tailWriter) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	n := len(p)
	if room := t.max/2 - len(t.head); room > 0 {
		k := min(room, len(p))
		t.head = append(t.head, p[:k]...)
		p = p[k:]
	}
	t.tail = append(t.tail, p...)
	if over := len(t.tail) - t.max/2; over > 0 {
		t.tail = append(t.tail[:0], t.tail[over:]...)
		t.cut = true
	}
	return n, nil
}

func (t *tailWriter) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.cut {
		return string(t.head) + "\n…\n" + string(t.tail)
	}
	return string(t.head) + string(t.tail)
}

// PIDs are the process IDs of the live workers, in no order.
func (e *Isolated) PIDs() []int {
	e.mu.Lock()
	defer e.mu.Unlock()
	pids := make([]int, 0, len(e.live))
	for w := range e.live {
		pids = append(pids, w.cmd.Process.Pid)
	}
	return pids
}
