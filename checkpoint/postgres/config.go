package postgres

import (
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/loomwork/loom/checkpoint"
	"github.com/loomwork/loom/internal/config"
)

// Config configures [Open] and [OpenSessions]: where the database is (a
// DSN, or a pool of the caller's) and how loom's tables live there. Zero
// fields mean their defaults; a config loom refuses fails with an error
// wrapping [checkpoint.ErrInvalid] that names the field.
type Config struct {
	// DSN is the database to connect to, a postgres:// URL or key=value
	// string as pgx reads it; the store's Close closes its connections.
	// Give DSN or Pool, not both.
	DSN string
	// Pool is an existing pool to use instead of connecting; the store's
	// Close leaves it open: it is the caller's.
	Pool *pgxpool.Pool
	// Schema keeps loom's tables in the named PostgreSQL schema, creating
	// it when missing; empty (the default) means the connection's current
	// schema, the first of its search_path (usually "public").
	Schema string
	// Clock stamps sessions' Created and Updated times; nil means
	// time.Now. Checkpoint times come from the caller.
	Clock func() time.Time
}

// withDefaults returns c with its zero fields filled, or an error naming
// the field it refuses.
func (c Config) withDefaults() (Config, error) {
	if err := config.Check("postgres.Config", c); err != nil {
		return c, fmt.Errorf("checkpoint/postgres: %w: %w", checkpoint.ErrInvalid, err)
	}
	switch {
	case c.DSN != "" && c.Pool != nil:
		return c, fmt.Errorf("checkpoint/postgres: %w: postgres.Config has both DSN and Pool: give one", checkpoint.ErrInvalid)
	case c.DSN == "" && c.Pool == nil:
		return c, fmt.Errorf("checkpoint/postgres: %w: postgres.Config has neither DSN nor Pool: give a connection string (postgres://…) as DSN, or a pool from pgxpool.New as Pool", checkpoint.ErrInvalid)
	}
	if len(c.Schema) > 63 {
		return c, fmt.Errorf("checkpoint/postgres: %w: postgres.Config.Schema %q is longer than PostgreSQL's 63 bytes", checkpoint.ErrInvalid, c.Schema)
	}
	if c.Clock == nil {
		c.Clock = time.Now
	}
	return c, nil
}

// table returns the SQL name of one of loom's tables in c's schema.
func (c Config) table(name string) string {
	if c.Schema == "" {
		return name
	}
	return pgx.Identifier{c.Schema, name}.Sanitize()
}
