package sandbox

import (
	"fmt"
	"runtime"
	"time"
)

// Option configures an executor. Options that concern worker processes
// are ignored by the in-process executor.
type Option func(*config)

// config is what the options build.
type config struct {
	limits      Limits
	fixedTime   *time.Time
	randSeed    *uint64
	concurrency int

	// osMemoryLimit: the runs are in a worker, whose process memory is
	// bounded (OS limits, GOMEMLIMIT): the typed array and ArrayBuffer
	// constructors are not wrapped.
	osMemoryLimit bool

	// isolated executor only
	workerPath    string
	workerArgs    []string
	workerEnv     []string
	startTimeout  time.Duration
	cgroupParent  string
	disableCgroup bool
	disableNS     bool
}

// WithLimits sets the per-run limits; zero fields keep their defaults.
func WithLimits(l Limits) Option {
	return func(c *config) { c.limits = l }
}

// WithTimeout sets only the time limit (Limits.Timeout).
func WithTimeout(d time.Duration) Option {
	return func(c *config) { c.limits.Timeout = d }
}

// WithFixedTime makes Date.now() and new Date() return t in every run, for
// reproducible runs.
func WithFixedTime(t time.Time) Option {
	return func(c *config) { c.fixedTime = &t }
}

// WithRandSeed makes Math.random() a pseudo-random sequence seeded with
// seed, restarted for every run, for reproducible runs. Without it
// Math.random() is seeded unpredictably.
func WithRandSeed(seed uint64) Option {
	return func(c *config) { c.randSeed = &seed }
}

// WithConcurrency caps the runs in progress at once: in process, the
// goroutines running code (a run given up after its time limit keeps its
// slot until it really ends); isolated, the worker processes. Default
// runtime.GOMAXPROCS(0). Further runs wait for a slot, or for their context.
func WithConcurrency(n int) Option {
	return func(c *config) { c.concurrency = n }
}

// WithWorkerCommand makes the isolated executor start path with args as its
// workers instead of re-executing the current binary. The program must call
// [ServeWorkerIfChild] first thing in main, as a binary built from
// github.com/loomwork/loom/sandbox/cmd/loom-jsworker does.
func WithWorkerCommand(path string, args ...string) Option {
	return func(c *config) { c.workerPath, c.workerArgs = path, args }
}

// WithWorkerEnv adds environment variables ("KEY=value") to the workers'
// otherwise empty environment. Never pass secrets: the code can't read the
// environment, but a worker is where untrusted code runs.
func WithWorkerEnv(env ...string) Option {
	return func(c *config) { c.workerEnv = append(c.workerEnv, env...) }
}

// WithWorkerStartTimeout bounds how long a worker may take to start and
// report ready. Default 10s.
func WithWorkerStartTimeout(d time.Duration) Option {
	return func(c *config) { c.startTimeout = d }
}

// WithCgroupParent names a cgroup v2 directory, delegated to this process,
// with the memory controller enabled for its children; each worker gets a
// child cgroup there whose memory.max is the memory limit. Without it the
// executor looks for such a directory where this process's cgroup is, and
// falls back to RLIMIT_AS when there is none.
func WithCgroupParent(dir string) Option {
	return func(c *config) { c.cgroupParent = dir }
}

// WithoutCgroup makes the isolated executor use RLIMIT_AS even where a
// cgroup could be used.
func WithoutCgroup() Option {
	return func(c *config) { c.disableCgroup = true }
}

// WithoutNamespaces makes the isolated executor start its workers in the
// host's namespaces, even where the kernel would give them their own.
func WithoutNamespaces() Option {
	return func(c *config) { c.disableNS = true }
}

func newConfig(opts []Option) (*config, error) {
	c := &config{}
	for _, o := range opts {
		if o != nil {
			o(c)
		}
	}
	l, err := c.limits.withDefaults()
	if err != nil {
		return nil, err
	}
	c.limits = l
	switch {
	case c.concurrency < 0:
		return nil, fmt.Errorf("sandbox: WithConcurrency(%d): the concurrency must be positive", c.concurrency)
	case c.concurrency == 0:
		c.concurrency = runtime.GOMAXPROCS(0)
	}
	if c.startTimeout <= 0 {
		c.startTimeout = 10 * time.Second
	}
	return c, nil
}
