package sandbox

import (
	"context"

	"github.com/loomwork/loom/sandbox/internal/jsrt"
	"github.com/loomwork/loom/sandbox/internal/worker"
)

// InProcess runs code with goja in the calling process: a fresh runtime per
// run, with every limit of [Limits] and the hardening described in the
// package documentation. The runtime is set up ahead, between runs, so a run
// that follows idle time pays only for compiling, running and exporting
// (bench/README.md has the figures). It contains accidental faults, but it cannot stop a built-in that ignores
// interrupts, nor a single huge allocation: use [Isolated] for untrusted
// code. It is safe for concurrent use.
type InProcess struct {
	rt *jsrt.InProcess
}

var (
	_ Executor   = (*InProcess)(nil)
	_ ToolRunner = (*InProcess)(nil)
)

// NewInProcess returns an in-process executor; see [InProcessConfig] for
// its settings, all optional.
func NewInProcess(cfg InProcessConfig) (*InProcess, error) {
	rc, err := cfg.runtimeConfig()
	if err != nil {
		return nil, err
	}
	rt, err := jsrt.NewInProcess(rc)
	if err != nil {
		return nil, err
	}
	return &InProcess{rt: rt}, nil
}

// Limits returns the limits every run gets.
func (e *InProcess) Limits() Limits { return e.rt.Limits() }

// Run runs code on a fresh runtime. It waits for a concurrency slot first
// (the wait counts against ctx, not against the time limit). It returns
// within the time limit plus the grace period: a run that does not stop
// by then is given up and keeps its slot until it ends.
func (e *InProcess) Run(ctx context.Context, code string) (*Result, error) {
	return e.rt.Run(ctx, code)
}

// RunWithTools runs code as Run does, with box's tools offered to it as
// tools.<name>(args), each call on its own goroutine of this process; a
// nil box offers none.
func (e *InProcess) RunWithTools(ctx context.Context, code string, box *Toolbox) (*Result, error) {
	return e.rt.RunWithTools(ctx, code, box)
}

// Close makes later runs fail with ErrClosed. Runs in progress go on; use
// Wait to wait for them.
func (e *InProcess) Close() error { return e.rt.Close() }

// Wait waits until every run goroutine has ended, given-up runs included,
// or until ctx ends.
func (e *InProcess) Wait(ctx context.Context) error { return e.rt.Wait(ctx) }

// Isolated runs code in a pool of worker processes, each running the same
// hardened runner as [InProcess] under operating-system limits: a cgroup v2
// memory.max where one is delegated (see [IsolatedConfig.CgroupParent]), otherwise
// RLIMIT_AS set to the worker's measured address space plus a budget; plus
// GOMEMLIMIT, a lowered Go stack limit, a system call filter, namespaces
// where the kernel grants them, and a SIGKILL from the parent when a run
// passes its time limit plus grace. A worker that dies or is killed is
// replaced, and the run gets an error (KindWorkerCrashed or KindTimeout).
//
// Isolated re-executes the program's own binary, so main must call
// [ServeWorkerIfChild] first, or [IsolatedConfig.WorkerCommand] must name a worker
// binary. It is safe for concurrent use; Close kills the workers.
type Isolated struct {
	pool *worker.Isolated
}

var (
	_ Executor   = (*Isolated)(nil)
	_ ToolRunner = (*Isolated)(nil)
)

// NewIsolated starts a pool of worker processes (one per concurrency slot,
// see [IsolatedConfig.Concurrency]). It waits for the first worker to be
// ready, so a misconfiguration fails here; the others start in the
// background (on demand with [IsolatedConfig.BackgroundStart]).
func NewIsolated(cfg IsolatedConfig) (*Isolated, error) {
	rc, err := cfg.runtimeConfig()
	if err != nil {
		return nil, err
	}
	pool, err := worker.NewIsolated(rc)
	if err != nil {
		return nil, err
	}
	return &Isolated{pool: pool}, nil
}

// Limits returns the limits every run gets.
func (e *Isolated) Limits() Limits { return e.pool.Limits() }

// Seccomp reports whether the workers run under their system call filter
// (a seccomp allowlist of what the Go runtime needs), and when not, why.
func (e *Isolated) Seccomp() (bool, string) { return e.pool.Seccomp() }

// Namespaces reports whether the workers run in their own user, network,
// mount and PID namespaces with an empty read-only root, and when not,
// why.
func (e *Isolated) Namespaces() (bool, string) { return e.pool.Namespaces() }

// MemoryEnforcement says how the workers' memory is capped by the
// operating system: "cgroup", "rlimit", or "none" (in binaries built with
// -race, whose shadow memory rules out RLIMIT_AS; GOMEMLIMIT and the heap
// watchdog still apply).
func (e *Isolated) MemoryEnforcement() string { return e.pool.MemoryEnforcement() }

// Run runs code in an idle worker, waiting for one first (the wait counts
// against ctx, not against the time limit).
func (e *Isolated) Run(ctx context.Context, code string) (*Result, error) {
	return e.pool.Run(ctx, code)
}

// RunWithTools runs code in a worker as Run does, with box's tools offered
// to it as tools.<name>(args). Each call is a message over the worker's
// pipe: the worker never runs a tool, the parent does, on its own
// goroutine, after checking that the call belongs to the run in flight and
// stays within its limits; a worker that breaks those rules is killed. A
// nil box offers none.
func (e *Isolated) RunWithTools(ctx context.Context, code string, box *Toolbox) (*Result, error) {
	return e.pool.RunWithTools(ctx, code, box)
}

// Close kills the workers and waits for them to exit. Runs in progress
// fail with ErrClosed.
func (e *Isolated) Close() error { return e.pool.Close() }

// ServeWorkerIfChild turns the process into a sandbox worker when it was
// started as one by an [Isolated] executor, and returns at once otherwise.
// Call it first thing in main (and in TestMain of tests that use an
// Isolated executor), before flags are parsed or anything else starts:
//
//	func main() {
//		sandbox.ServeWorkerIfChild()
//		// … the program as usual
//	}
//
// The Isolated executor re-executes the program's own binary
// (os.Executable) with LOOM_SANDBOX_WORKER=1 in an otherwise empty
// environment; in that process ServeWorkerIfChild serves runs on
// stdin/stdout and exits when its parent goes away, so the rest of main
// never runs. Use [IsolatedConfig.WorkerCommand] to run a dedicated worker binary
// instead.
func ServeWorkerIfChild() { worker.ServeWorkerIfChild() }
