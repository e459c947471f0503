package sqlite

import (
	"fmt"
	"time"

	"github.com/loomwork/loom/checkpoint"
)

// DefaultBusyTimeout is how long a write waits, by default, for another
// process's write lock.
const DefaultBusyTimeout = 10 * time.Second

// Option configures [Open], [OpenDefault], [OpenSessions] and
// [OpenDefaultSessions].
type Option func(*config)

type config struct {
	busyTimeout time.Duration
	now         func() time.Time
}

func newConfig(opts []Option) (config, error) {
	c := config{busyTimeout: DefaultBusyTimeout, now: time.Now}
	for _, o := range opts {
		o(&c)
	}
	if c.busyTimeout < 0 {
		return c, fmt.Errorf("checkpoint/sqlite: %w: busy timeout %s is negative: use 0 for the default (%s) or a positive duration", checkpoint.ErrInvalid, c.busyTimeout, DefaultBusyTimeout)
	}
	if c.busyTimeout == 0 {
		c.busyTimeout = DefaultBusyTimeout
	}
	return c, nil
}

// WithBusyTimeout sets how long a write waits for another process's write
// lock before failing; 0 means [DefaultBusyTimeout], negative is an error.
func WithBusyTimeout(d time.Duration) Option { return func(c *config) { c.busyTimeout = d } }

// WithClock sets the clock that stamps sessions' Created and Updated times;
// nil keeps the default, time.Now. Checkpoint times come from the caller.
func WithClock(now func() time.Time) Option {
	return func(c *config) {
		if now != nil {
			c.now = now
		}
	}
}
