package sandbox

import (
	"fmt"
	"time"

	"github.com/loomwork/loom/internal/config"
	"github.com/loomwork/loom/sandbox/internal/jsrt"
)

// ErrInvalidConfig is wrapped by the errors of [NewInProcess] and
// [NewIsolated] for a config they refuse; the message names the field.
var ErrInvalidConfig = jsrt.ErrInvalidConfig

// InProcessConfig configures [NewInProcess]. The zero value is a working
// executor with [DefaultLimits]; zero fields mean their defaults and
// negative numbers are refused, with an error wrapping [ErrInvalidConfig]
// that names the field.
type InProcessConfig struct {
	// Limits are the per-run limits; zero fields keep their defaults.
	Limits Limits
	// FixedTime, when not zero, is what Date.now() and new Date() return
	// in every run, for reproducible runs.
	FixedTime time.Time
	// RandSeed, when not zero, makes Math.random() a pseudo-random
	// sequence seeded with it, restarted for every run, for reproducible
	// runs. Zero seeds Math.random() unpredictably.
	RandSeed uint64
	// Concurrency caps the runs in progress at once: the goroutines
	// running code (a run given up after its time limit keeps its slot
	// until it really ends). Zero means runtime.GOMAXPROCS(0). Further
	// runs wait for a slot, or for their context.
	Concurrency int
}

// IsolatedConfig configures [NewIsolated]. The zero value is a working
// pool for a binary whose main calls [ServeWorkerIfChild]; zero fields
// mean their defaults and negative numbers are refused, with an error
// wrapping [ErrInvalidConfig] that names the field.
type IsolatedConfig struct {
	// Limits are the per-run limits; zero fields keep their defaults.
	Limits Limits
	// FixedTime, when not zero, is what Date.now() and new Date() return
	// in every run, for reproducible runs.
	FixedTime time.Time
	// RandSeed, when not zero, makes Math.random() a pseudo-random
	// sequence seeded with it, restarted for every run, for reproducible
	// runs. Zero seeds Math.random() unpredictably.
	RandSeed uint64
	// Concurrency caps the worker processes, and so the runs in progress
	// at once. Zero means runtime.GOMAXPROCS(0). Further runs wait for an
	// idle worker, or for their context.
	Concurrency int

	// WorkerCommand, when set, is the program and arguments the executor
	// starts as its workers instead of re-executing the current binary.
	// The program must call [ServeWorkerIfChild] first thing in main, as
	// a binary built from github.com/loomwork/loom/sandbox/cmd/loom-jsworker
	// does.
	WorkerCommand []string
	// WorkerEnv adds environment variables ("KEY=value") to the workers'
	// otherwise empty environment. Never pass secrets: the code can't read
	// the environment, but a worker is where untrusted code runs.
	WorkerEnv []string
	// StartTimeout bounds how long a worker may take to start and report
	// ready. Zero means 10s.
	StartTimeout time.Duration
	// CgroupParent names a cgroup v2 directory, delegated to this process,
	// with the memory controller enabled for its children; each worker
	// gets a child cgroup there whose memory.max is the memory limit.
	// Empty: the executor looks for such a directory where this process's
	// cgroup is, and falls back to RLIMIT_AS when there is none.
	CgroupParent string
	// NoCgroup makes the executor use RLIMIT_AS even where a cgroup could
	// be used.
	NoCgroup bool
	// NoNamespaces starts the workers in the host's namespaces, even
	// where the kernel would give them their own.
	NoNamespaces bool
	// BackgroundStart makes NewIsolated return at once and start its
	// first worker in the background, so that the worker's start overlaps
	// with what the program does next (a command-line tool's first model
	// call). The first run waits for the worker; when it could not start
	// (a worker command that is not a loom worker, say), the runs fail
	// with an error that says why, instead of NewIsolated. Seccomp and
	// Namespaces wait for the first worker. The other workers start on
	// demand: a run that finds every worker busy starts one more (up to
	// Concurrency) and takes the first that is free, so a program that
	// runs one snippet at a time starts one process.
	BackgroundStart bool
}

// runtimeConfig is the runtime's config for c, checked.
func (c InProcessConfig) runtimeConfig() (jsrt.Config, error) {
	if err := config.Check("sandbox.InProcessConfig", c); err != nil {
		return jsrt.Config{}, fmt.Errorf("sandbox: %w: %w", ErrInvalidConfig, err)
	}
	return jsrt.Config{Limits: c.Limits, FixedTime: timeOrNil(c.FixedTime), RandSeed: seedOrNil(c.RandSeed), Concurrency: c.Concurrency}, nil
}

// runtimeConfig is the worker pool's config for c, checked.
func (c IsolatedConfig) runtimeConfig() (jsrt.Config, error) {
	if err := config.Check("sandbox.IsolatedConfig", c); err != nil {
		return jsrt.Config{}, fmt.Errorf("sandbox: %w: %w", ErrInvalidConfig, err)
	}
	rc := jsrt.Config{
		Limits: c.Limits, FixedTime: timeOrNil(c.FixedTime), RandSeed: seedOrNil(c.RandSeed), Concurrency: c.Concurrency,
		WorkerEnv: c.WorkerEnv, StartTimeout: c.StartTimeout, CgroupParent: c.CgroupParent,
		DisableCgroup: c.NoCgroup, DisableNS: c.NoNamespaces, BackgroundStart: c.BackgroundStart,
	}
	if len(c.WorkerCommand) > 0 {
		if c.WorkerCommand[0] == "" {
			return jsrt.Config{}, fmt.Errorf("sandbox: %w: sandbox.IsolatedConfig.WorkerCommand starts with an empty program path: give the path of a loom worker binary, or leave WorkerCommand empty to re-execute this binary", ErrInvalidConfig)
		}
		rc.WorkerPath, rc.WorkerArgs = c.WorkerCommand[0], c.WorkerCommand[1:]
	}
	return rc, nil
}

func timeOrNil(t time.Time) *time.Time {
	if t.IsZero() {
		return nil
	}
	return &t
}

func seedOrNil(s uint64) *uint64 {
	if s == 0 {
		return nil
	}
	return &s
}
