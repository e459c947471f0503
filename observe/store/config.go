package store

import (
	"fmt"
	"time"

	cfgcheck "github.com/loomwork/loom/internal/config"
	"github.com/loomwork/loom/model/pricing"
)

// Defaults of the retention bounds and the busy timeout.
const (
	DefaultMaxAge      = 30 * 24 * time.Hour
	DefaultMaxTraces   = 10_000
	DefaultMaxSpans    = 1_000_000
	DefaultBusyTimeout = 10 * time.Second
	// DefaultPruneBatch is how many span rows one write may delete at most.
	DefaultPruneBatch = 5_000
	// DefaultMaxSharedTexts and DefaultMaxSharedTextBytes bound the table
	// of shared attribute keys and values (see [Config.MaxSharedTexts]).
	DefaultMaxSharedTexts     = 4096
	DefaultMaxSharedTextBytes = 4 << 20
)

// Config configures [Open] and [OpenExporter]. The zero value opens the
// file at [DefaultPath] with the default bounds. Zero fields mean their
// defaults; a negative retention bound means no bound (those fields say
// so), and other negative numbers are refused with an error wrapping
// [ErrInvalidConfig] that names the field.
type Config struct {
	// Path is the trace database file; empty means [DefaultPath].
	Path string
	// MaxAge keeps traces that started less than MaxAge ago; zero means
	// [DefaultMaxAge], negative keeps them regardless of age.
	MaxAge time.Duration `config:"negative"`
	// MaxTraces keeps at most this many traces, the newest; zero means
	// [DefaultMaxTraces], negative means no bound by count.
	MaxTraces int `config:"negative"`
	// MaxSpans keeps at most about this many spans in all, deleting whole
	// traces, oldest first; zero means [DefaultMaxSpans], negative means
	// no bound.
	MaxSpans int `config:"negative"`
	// PruneBatch bounds the span rows one write deletes while pruning;
	// zero means [DefaultPruneBatch].
	PruneBatch int
	// MaxSharedTexts and MaxSharedTextBytes bound the texts the store
	// shares between runs (attribute keys, and long values that repeat,
	// such as an agent's description), over every process that writes to
	// the file. Retention never deletes a shared text, since any process
	// may refer to it; once a bound is reached, new keys and values are
	// stored within each run instead, which costs bytes, not correctness.
	// Zero means [DefaultMaxSharedTexts] and [DefaultMaxSharedTextBytes],
	// negative means no bound.
	MaxSharedTexts     int   `config:"negative"`
	MaxSharedTextBytes int64 `config:"negative"`
	// BusyTimeout is how long a statement waits for another process's
	// write lock before failing with SQLITE_BUSY; zero means
	// [DefaultBusyTimeout].
	BusyTimeout time.Duration
	// Prices is the price table used to estimate the cost of chat spans
	// that carry no loom.cost.usd attribute; nil means [pricing.Default].
	Prices *pricing.Table
	// Clock is the clock of age-based retention; nil means time.Now.
	Clock func() time.Time
}

// config is a Config resolved: defaults filled, and "no bound" as 0.
type config struct {
	maxAge      time.Duration
	maxTraces   int
	maxSpans    int
	pruneBatch  int
	maxTexts    int
	maxTextSize int64
	busyTimeout time.Duration
	prices      *pricing.Table
	now         func() time.Time
}

// resolve checks c and fills its defaults.
func (c Config) resolve() (config, error) {
	if err := cfgcheck.Check("store.Config", c); err != nil {
		return config{}, fmt.Errorf("store: %w: %w", ErrInvalidConfig, err)
	}
	// bound is a retention bound: zero the default, negative none (0).
	bound := func(v, def int64) int64 {
		switch {
		case v < 0:
			return 0
		case v == 0:
			return def
		}
		return v
	}
	orDefault := func(v, def int64) int64 {
		if v == 0 {
			return def
		}
		return v
	}
	r := config{
		maxAge:      time.Duration(bound(int64(c.MaxAge), int64(DefaultMaxAge))),
		maxTraces:   int(bound(int64(c.MaxTraces), DefaultMaxTraces)),
		maxSpans:    int(bound(int64(c.MaxSpans), DefaultMaxSpans)),
		pruneBatch:  int(orDefault(int64(c.PruneBatch), DefaultPruneBatch)),
		maxTexts:    int(bound(int64(c.MaxSharedTexts), DefaultMaxSharedTexts)),
		maxTextSize: bound(c.MaxSharedTextBytes, DefaultMaxSharedTextBytes),
		busyTimeout: time.Duration(orDefault(int64(c.BusyTimeout), int64(DefaultBusyTimeout))),
		prices:      c.Prices,
		now:         c.Clock,
	}
	if r.now == nil {
		r.now = time.Now
	}
	return r, nil
}
