package postgres

import (
	"context"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/loomwork/loom/checkpoint/internal/sqlrow"
)

// db is the plumbing [Store] and [Sessions] share: the pool, whether
// closing the store closes it, the SQL with the schema's table names, and
// the closed state.
type db struct {
	pool  *pgxpool.Pool
	owned bool // Open made the pool, so Close closes it
	cfg   Config
	sql   *strings.Replacer // {runs}, {checkpoints}, ... to table names
	where string
	sqlrow.Closer
}

// openDB connects to cfg.DSN, or uses cfg.Pool, and brings the schema up
// to date.
func openDB(ctx context.Context, cfg Config) (*db, error) {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	if cfg.Pool != nil {
		return useDB(ctx, cfg.Pool, cfg)
	}
	pc, err := pgxpool.ParseConfig(cfg.DSN)
	if err != nil {
		// pgx's parse errors quote the DSN with its password masked.
		return nil, fmt.Errorf("checkpoint/postgres: parse the connection string: %w", err)
	}
	pool, err := pgxpool.NewWithConfig(ctx, pc)
	if err != nil {
		return nil, fmt.Errorf("checkpoint/postgres: connect to %s: %w", where(pc.ConnConfig.Config.Host, pc.ConnConfig.Config.Port, pc.ConnConfig.Config.Database), err)
	}
	d, err := useDB(ctx, pool, cfg)
	if err != nil {
		pool.Close()
		return nil, err
	}
	d.owned = true
	return d, nil
}

// useDB uses pool and brings the schema up to date.
func useDB(ctx context.Context, pool *pgxpool.Pool, cfg Config) (*db, error) {
	if pool == nil {
		return nil, fmt.Errorf("checkpoint/postgres: the pool is nil: create one with pgxpool.New, or use Open with a connection string")
	}
	c := pool.Config().ConnConfig
	d := &db{pool: pool, cfg: cfg, where: where(c.Host, c.Port, c.Database)}
	var pairs []string
	for _, t := range sqlrow.Tables {
		pairs = append(pairs, "{"+strings.TrimPrefix(t, "loom_")+"}", cfg.table(t))
	}
	d.sql = strings.NewReplacer(pairs...)
	if err := d.migrate(ctx); err != nil {
		return nil, fmt.Errorf("checkpoint/postgres: open %s: %w", d.where, err)
	}
	return d, nil
}

func where(host string, port uint16, database string) string {
	return fmt.Sprintf("database %q on %s:%d", database, host, port)
}

// q returns query with {runs}, {checkpoints}, {sessions}, {session_turns}
// and {schema} replaced by the table names.
func (d *db) q(query string) string { return d.sql.Replace(query) }

// close marks the store closed and closes the pool when Open made it.
func (d *db) close() error {
	return d.Close(func() error {
		if d.owned {
			d.pool.Close()
		}
		return nil
	})
}

func (d *db) errs() sqlrow.Errs {
	return sqlrow.Errs{Store: "checkpoint/postgres", Where: d.where, Again: "open the store again"}
}

// ready reports a done context or a closed store before operation op on
// a run or session; see [sqlrow.Errs.Ready].
func (d *db) ready(ctx context.Context, op, what, id string) error {
	return d.errs().Ready(ctx, d.Closed(), op, what, id)
}

// fail wraps the error of operation op on a run or session; see
// [sqlrow.Errs.Fail].
func (d *db) fail(ctx context.Context, op, what, id string, err error) error {
	return d.errs().Fail(ctx, d.Closed(), op, what, id, err)
}

// inTx runs fn in one transaction and commits it when fn returns nil.
func (d *db) inTx(ctx context.Context, fn func(tx pgx.Tx) error) error {
	return pgx.BeginFunc(ctx, d.pool, fn)
}
