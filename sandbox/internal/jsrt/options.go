package jsrt

import (
	"fmt"
	"runtime"
	"time"
)

// Option configures an executor. Options that concern worker processes
// are ignored by the in-process executor.
type Option func(*Config)

// Config is what the options build.
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
	// ready (WithBackgroundStart).
	BackgroundStart bool
}

// NewConfig applies opts to a zero Config, fills the limits' defaults and
// checks them.
func NewConfig(opts []Option) (*Config, error) {
	c := &Config{}
	for _, o := range opts {
		if o != nil {
			o(c)
		}
	}
	l, err := c.Limits.withDefaults()
	if err != nil {
		return nil, err
	}
	c.Limits = l
	switch {
	case c.Concurrency < 0:
		return nil, fmt.Errorf("sandbox: WithConcurrency(%d): the concurrency must be positive", c.Concurrency)
	case c.Concurrency == 0:
		c.Concurrency = runtime.GOMAXPROCS(0)
	}
	if c.StartTimeout <= 0 {
		c.StartTimeout = 10 * time.Second
	}
	return c, nil
}
