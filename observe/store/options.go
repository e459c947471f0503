package store

import (
	"time"

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
	// of shared attribute keys and values (see [WithMaxSharedTexts]).
	DefaultMaxSharedTexts     = 4096
	DefaultMaxSharedTextBytes = 4 << 20
)

// Option configures [Open].
type Option func(*config)

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

func defaultConfig() config {
	return config{
		maxAge:      DefaultMaxAge,
		maxTraces:   DefaultMaxTraces,
		maxSpans:    DefaultMaxSpans,
		pruneBatch:  DefaultPruneBatch,
		maxTexts:    DefaultMaxSharedTexts,
		maxTextSize: DefaultMaxSharedTextBytes,
		busyTimeout: DefaultBusyTimeout,
		now:         time.Now,
	}
}

// WithMaxAge keeps traces that started less than d ago; 0 or less keeps them
// regardless of age. Default [DefaultMaxAge].
func WithMaxAge(d time.Duration) Option { return func(c *config) { c.maxAge = d } }

// WithMaxTraces keeps at most n traces, the newest; 0 or less means no bound
// by count. Default [DefaultMaxTraces].
func WithMaxTraces(n int) Option { return func(c *config) { c.maxTraces = n } }

// WithMaxSpans keeps at most about n spans in all, deleting whole traces,
// oldest first; 0 or less means no bound. Default [DefaultMaxSpans].
func WithMaxSpans(n int) Option { return func(c *config) { c.maxSpans = n } }

// WithPruneBatch bounds the span rows one write deletes while pruning (at
// least 1). Default [DefaultPruneBatch].
func WithPruneBatch(n int) Option {
	return func(c *config) { c.pruneBatch = max(n, 1) }
}

// WithMaxSharedTexts bounds the texts the store shares between runs
// (attribute keys, and long values that repeat, such as an agent's
// description) at n texts and size bytes in all, over every process that
// writes to the file. Retention never deletes a shared text, since any
// process may refer to it; once the bound is reached, new keys and values
// are stored within each run instead, which costs bytes, not correctness.
// 0 or less means no bound. Default [DefaultMaxSharedTexts] and
// [DefaultMaxSharedTextBytes].
func WithMaxSharedTexts(n int, size int64) Option {
	return func(c *config) { c.maxTexts, c.maxTextSize = n, size }
}

// WithBusyTimeout sets how long a statement waits for another process's
// write lock before failing with SQLITE_BUSY. Default [DefaultBusyTimeout].
func WithBusyTimeout(d time.Duration) Option { return func(c *config) { c.busyTimeout = d } }

// WithPrices sets the price table used to estimate the cost of chat spans
// that carry no loom.cost.usd attribute. Default: [pricing.Default].
func WithPrices(t *pricing.Table) Option { return func(c *config) { c.prices = t } }

// WithClock sets the clock used for age-based retention; tests use it.
func WithClock(now func() time.Time) Option {
	return func(c *config) {
		if now != nil {
			c.now = now
		}
	}
}
