package jsrt

import (
	"errors"
	"fmt"
	"runtime"
	"time"
)

// ErrInvalidConfig is wrapped by the errors of the executors' constructors
// for a config they refuse.
var ErrInvalidConfig = errors.New("invalid config")

// Config configures an executor: sandbox.InProcessConfig and
// sandbox.IsolatedConfig in the runtime's terms. Fields that concern
// worker processes are ignored by the in-process executor.
type Config struct {
	Limits      Limits
	FixedTime   *time.Time
	RandSeed    *uint64
	Concurrency int

	// OSMemoryLimit: the runs are in a worker, whose process memory is
	// bounded (OS limits, GOMEMLIMIT): the typed array and ArrayBuffer
	// constructors are not wrapped.
	OSMemoryLimit bool

	// isolated executor only
	WorkerPath    string
	WorkerArgs    []string
	WorkerEnv     []string
	StartTimeout  time.Duration
	CgroupParent  string
	DisableCgroup bool
	DisableNS     bool
	// BackgroundStart: NewIsolated returns before the first worker is
	// ready.
	BackgroundStart bool
}

// WithDefaults returns a copy of c with its zero fields filled with their
// defaults, or an error wrapping [ErrInvalidConfig] naming a negative
// field.
func (c Config) WithDefaults() (*Config, error) {
	l, err := c.Limits.withDefaults()
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInvalidConfig, err)
	}
	c.Limits = l
	switch {
	case c.Concurrency < 0:
		return nil, fmt.Errorf("sandbox: %w: Concurrency is %d: use 0 for the default (GOMAXPROCS) or a positive number", ErrInvalidConfig, c.Concurrency)
	case c.Concurrency == 0:
		c.Concurrency = runtime.GOMAXPROCS(0)
	}
	switch {
	case c.StartTimeout < 0:
		return nil, fmt.Errorf("sandbox: %w: StartTimeout is %s: use 0 for the default (10s) or a positive duration", ErrInvalidConfig, c.StartTimeout)
	case c.StartTimeout == 0:
		c.StartTimeout = 10 * time.Second
	}
	return &c, nil
}
