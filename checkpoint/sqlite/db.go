package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/loomwork/loom/checkpoint/internal/sqlrow"
	"github.com/loomwork/loom/internal/userfile" // also registers the "sqlite" database/sql driver
)

// db is the plumbing [Store] and [Sessions] share: one write connection
// whose transactions begin IMMEDIATE (so the compare-and-swap holds across
// processes), a pool of read-only connections, and the closed state.
type db struct {
	path  string
	cfg   Config
	write *sql.DB
	read  *sql.DB
	sqlrow.Closer
}

// openDB opens (creating when missing) the database at cfg.Path, or at
// [DefaultPath] when it is empty, and brings its schema up to date.
func openDB(ctx context.Context, cfg Config) (*db, error) {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	path := cfg.Path
	if path == "" {
		if path, err = DefaultPath(); err != nil {
			return nil, err
		}
	}
	if dir := filepath.Dir(path); dir != "" {
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return nil, fmt.Errorf("checkpoint/sqlite: create the folder of %s: %w (choose another file, or set %s)", path, err, PathEnv)
		}
	}
	pools, err := userfile.OpenSQLite(path, cfg.BusyTimeout)
	if err != nil {
		return nil, fmt.Errorf("checkpoint/sqlite: open %s: %w", path, err)
	}
	if err := migrate(ctx, pools.Write, cfg.BusyTimeout); err != nil {
		pools.Close()
		return nil, fmt.Errorf("checkpoint/sqlite: open %s: %w", path, err)
	}
	return &db{path: path, cfg: cfg, write: pools.Write, read: pools.Read}, nil
}

// close closes both pools; closing twice is not an error.
func (d *db) close() error {
	return d.Close(func() error { return errors.Join(d.write.Close(), d.read.Close()) })
}

// ready reports a done context or a closed store before operation op on
// a run or session; see [sqlrow.Errs.Ready].
func (d *db) ready(ctx context.Context, op, what, id string) error {
	return d.errs().Ready(ctx, d.Closed(), op, what, id)
}

// fail wraps the error of operation op on a run or session; see
// [sqlrow.Errs.Fail].
func (d *db) fail(ctx context.Context, op, what, id string, err error) error {
	return d.errs().Fail(ctx, d.Closed(), op, what, id, adviseBusy(err))
}

func (d *db) errs() sqlrow.Errs {
	return sqlrow.Errs{Store: "checkpoint/sqlite", Where: "database " + d.path, Again: "open the database again"}
}

// inTx runs fn in one IMMEDIATE write transaction and commits it when fn
// returns nil.
func (d *db) inTx(ctx context.Context, fn func(tx *sql.Tx) error) error {
	tx, err := d.write.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback() //nolint:errcheck // after Commit this is a no-op
	if err := fn(tx); err != nil {
		return err
	}
	return tx.Commit()
}

// adviseBusy says what to do about SQLITE_BUSY: another process held the
// write lock for longer than the busy timeout.
func adviseBusy(err error) error {
	if userfile.IsBusy(err) {
		return fmt.Errorf("%w: another process held the write lock longer than the busy timeout: retry, or raise sqlite.Config.BusyTimeout", err)
	}
	return err
}
