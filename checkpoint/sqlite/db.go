package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"

	"github.com/loomwork/loom/checkpoint/internal/sqlrow"
	msqlite "modernc.org/sqlite" // also registers the "sqlite" database/sql driver
	sqlite3 "modernc.org/sqlite/lib"
)

// db is the plumbing [Store] and [Sessions] share: one write connection
// whose transactions begin IMMEDIATE (so the compare-and-swap holds across
// processes), a pool of read-only connections, and the closed state.
type db struct {
	path  string
	cfg   config
	write *sql.DB
	read  *sql.DB
	sqlrow.Closer
}

// openDB opens (creating when missing) the database at path, or at
// [DefaultPath] when path is empty, and brings its schema up to date.
func openDB(ctx context.Context, path string, opts []Option) (*db, error) {
	cfg, err := newConfig(opts)
	if err != nil {
		return nil, err
	}
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
	write, err := sql.Open("sqlite", dsn(path, cfg, false))
	if err != nil {
		return nil, fmt.Errorf("checkpoint/sqlite: open %s: %w", path, err)
	}
	write.SetMaxOpenConns(1)
	write.SetMaxIdleConns(1)
	write.SetConnMaxLifetime(0)
	write.SetConnMaxIdleTime(0)
	if err := migrate(ctx, write); err != nil {
		write.Close()
		return nil, fmt.Errorf("checkpoint/sqlite: open %s: %w", path, err)
	}
	read, err := sql.Open("sqlite", dsn(path, cfg, true))
	if err != nil {
		write.Close()
		return nil, fmt.Errorf("checkpoint/sqlite: open %s for reading: %w", path, err)
	}
	read.SetMaxOpenConns(4)
	read.SetMaxIdleConns(2)
	return &db{path: path, cfg: cfg, write: write, read: read}, nil
}

// dsn builds the connection string: WAL journal, busy timeout, NORMAL sync
// (durable across a process crash; a power cut may lose the last commits
// but never corrupts the file), IMMEDIATE write transactions, and
// query_only for the read pool.
func dsn(path string, cfg config, readOnly bool) string {
	q := url.Values{}
	q.Set("_busy_timeout", fmt.Sprint(cfg.busyTimeout.Milliseconds()))
	q.Set("_journal_mode", "WAL")
	q.Set("_synchronous", "NORMAL")
	if readOnly {
		q.Set("_query_only", "1")
	} else {
		q.Set("_txlock", "immediate")
	}
	u := url.URL{Scheme: "file", Opaque: (&url.URL{Path: path}).EscapedPath(), RawQuery: q.Encode()}
	return u.String()
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
	var se *msqlite.Error
	if errors.As(err, &se) && se.Code()&0xff == sqlite3.SQLITE_BUSY {
		return fmt.Errorf("%w: another process held the write lock longer than the busy timeout: retry, or raise it with WithBusyTimeout", err)
	}
	return err
}
