package sqlite

import (
	"fmt"
	"time"

	"github.com/loomwork/loom/checkpoint"
	"github.com/loomwork/loom/internal/config"
)

// DefaultBusyTimeout is how long a write waits, by default, for another
// process's write lock.
const DefaultBusyTimeout = 10 * time.Second

// Config configures [Open] and [OpenSessions]. The zero value opens the
// file at [DefaultPath] with the defaults; zero fields mean their defaults
// and negative numbers are refused with an error wrapping
// [checkpoint.ErrInvalid] that names the field.
type Config struct {
	// Path is the SQLite file; empty means [DefaultPath].
	Path string
	// BusyTimeout is how long a write waits for another process's write
	// lock before failing; zero means [DefaultBusyTimeout].
	BusyTimeout time.Duration
	// Clock stamps sessions' Created and Updated times; nil means
	// time.Now. Checkpoint times come from the caller.
	Clock func() time.Time
}

// withDefaults returns c with its zero fields filled, or an error naming
// the field it refuses.
func (c Config) withDefaults() (Config, error) {
	if err := config.Check("sqlite.Config", c); err != nil {
		return c, fmt.Errorf("checkpoint/sqlite: %w: %w", checkpoint.ErrInvalid, err)
	}
	if c.BusyTimeout == 0 {
		c.BusyTimeout = DefaultBusyTimeout
	}
	if c.Clock == nil {
		c.Clock = time.Now
	}
	return c, nil
}
