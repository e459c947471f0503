package postgres

import (
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/loomwork/loom/checkpoint"
)

// Option configures [Open], [New], [OpenSessions] and [NewSessions].
type Option func(*config)

type config struct {
	schema string
	now    func() time.Time
}

func newConfig(opts []Option) (config, error) {
	c := config{now: time.Now}
	for _, o := range opts {
		o(&c)
	}
	if len(c.schema) > 63 {
		return c, fmt.Errorf("checkpoint/postgres: %w: schema name %q is longer than PostgreSQL's 63 bytes", checkpoint.ErrInvalid, c.schema)
	}
	return c, nil
}

// WithSchema keeps loom's tables in the named PostgreSQL schema, creating
// it when missing; empty (the default) means the connection's current
// schema, the first of its search_path (usually "public").
func WithSchema(name string) Option { return func(c *config) { c.schema = name } }

// WithClock sets the clock that stamps sessions' Created and Updated times;
// nil keeps the default, time.Now. Checkpoint times come from the caller.
func WithClock(now func() time.Time) Option {
	return func(c *config) {
		if now != nil {
			c.now = now
		}
	}
}

// table returns the SQL name of one of loom's tables in c's schema.
func (c config) table(name string) string {
	if c.schema == "" {
		return name
	}
	return pgx.Identifier{c.schema, name}.Sanitize()
}
