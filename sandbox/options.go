package sandbox

import (
	"time"

	"github.com/loomwork/loom/sandbox/internal/jsrt"
)

// Option configures an executor. Options that concern worker processes
// are ignored by the in-process executor.
type Option = jsrt.Option

// WithLimits sets the per-run limits; zero fields keep their defaults.
func WithLimits(l Limits) Option {
	return func(c *jsrt.Config) { c.Limits = l }
}

// WithTimeout sets only the time limit (Limits.Timeout).
func WithTimeout(d time.Duration) Option {
	return func(c *jsrt.Config) { c.Limits.Timeout = d }
}

// WithFixedTime makes Date.now() and new Date() return t in every run, for
// reproducible runs.
func WithFixedTime(t time.Time) Option {
	return func(c *jsrt.Config) { c.FixedTime = &t }
}

// WithRandSeed makes Math.random() a pseudo-random sequence seeded with
// seed, restarted for every run, for reproducible runs. Without it
// Math.random() is seeded unpredictably.
func WithRandSeed(seed uint64) Option {
	return func(c *jsrt.Config) { c.RandSeed = &seed }
}

// WithConcurrency caps the runs in progress at once: in process, the
// goroutines running code (a run given up after its time limit keeps its
// slot until it really ends); isolated, the worker processes. Default
// runtime.GOMAXPROCS(0). Further runs wait for a slot, or for their context.
func WithConcurrency(n int) Option {
	return func(c *jsrt.Config) { c.Concurrency = n }
}

// WithWorkerCommand makes the isolated executor start path with args as its
// workers instead of re-executing the current binary. The program must call
// [ServeWorkerIfChild] first thing in main, as a binary built from
// github.com/loomwork/loom/sandbox/cmd/loom-jsworker does.
func WithWorkerCommand(path string, args ...string) Option {
	return func(c *jsrt.Config) { c.WorkerPath, c.WorkerArgs = path, args }
}

// WithWorkerEnv adds environment variables ("KEY=value") to the workers'
// otherwise empty environment. Never pass secrets: the code can't read the
// environment, but a worker is where untrusted code runs.
func WithWorkerEnv(env ...string) Option {
	return func(c *jsrt.Config) { c.WorkerEnv = append(c.WorkerEnv, env...) }
}

// WithWorkerStartTimeout bounds how long a worker may take to start and
// report ready. Default 10s.
func WithWorkerStartTimeout(d time.Duration) Option {
	return func(c *jsrt.Config) { c.StartTimeout = d }
}

// WithCgroupParent names a cgroup v2 directory, delegated to this process,
// with the memory controller enabled for its children; each worker gets a
// child cgroup there whose memory.max is the memory limit. Without it the
// executor looks for such a directory where this process's cgroup is, and
// falls back to RLIMIT_AS when there is none.
func WithCgroupParent(dir string) Option {
	return func(c *jsrt.Config) { c.CgroupParent = dir }
}

// WithoutCgroup makes the isolated executor use RLIMIT_AS even where a
// cgroup could be used.
func WithoutCgroup() Option {
	return func(c *jsrt.Config) { c.DisableCgroup = true }
}

// WithoutNamespaces makes the isolated executor start its workers in the
// host's namespaces, even where the kernel would give them their own.
func WithoutNamespaces() Option {
	return func(c *jsrt.Config) { c.DisableNS = true }
}

// WithBackgroundStart makes NewIsolated return at once and start its first
// worker in the background, so that the worker's start overlaps with what
// the program does next (a command-line tool's first model call). The first
// run waits for the worker; when it could not start (a worker command that
// is not a loom worker, say), the runs fail with an error that says why,
// instead of NewIsolated. Seccomp and Namespaces wait for the first worker.
// The other workers start on demand: a run that finds every worker busy
// starts one more (up to the concurrency) and takes the first that is free,
// so a program that runs one snippet at a time starts one process.
func WithBackgroundStart() Option {
	return func(c *jsrt.Config) { c.BackgroundStart = true }
}
