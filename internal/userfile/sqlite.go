package userfile

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"time"

	msqlite "modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// SQLite is a local database's two pools: one write connection, whose
// transactions begin IMMEDIATE (so a compare-and-swap holds across
// processes), and a small pool of read-only connections.
type SQLite struct {
	Write, Read *sql.DB
}

// OpenSQLite opens the pools of the SQLite file at path with the "sqlite"
// driver of modernc.org/sqlite, which this package registers: WAL journal,
// the busy timeout, NORMAL sync (durable across a process crash; a power
// cut may lose the last commits but never corrupts the file), and
// query_only for the read pool. pragmas, such as "page_size(16384)", apply
// to the write connection. Nothing is read or written until first use.
func OpenSQLite(path string, busy time.Duration, pragmas ...string) (SQLite, error) {
	write, err := sql.Open("sqlite", sqliteDSN(path, busy, false, pragmas))
	if err != nil {
		return SQLite{}, err
	}
	write.SetMaxOpenConns(1)
	write.SetMaxIdleConns(1)
	write.SetConnMaxLifetime(0)
	write.SetConnMaxIdleTime(0)
	read, err := sql.Open("sqlite", sqliteDSN(path, busy, true, nil))
	if err != nil {
		write.Close()
		return SQLite{}, fmt.Errorf("for reading: %w", err)
	}
	read.SetMaxOpenConns(4)
	read.SetMaxIdleConns(2)
	return SQLite{Write: write, Read: read}, nil
}

// BeginWrite begins a transaction on db, a write pool. SQLite can
// report a new file busy without waiting on the busy timeout while another
// process opens it at the same moment and turns it to WAL mode, so a busy
// database is retried here, with a short back-off, for at most busy.
func BeginWrite(ctx context.Context, db *sql.DB, busy time.Duration) (*sql.Tx, error) {
	deadline := time.Now().Add(busy)
	wait := 2 * time.Millisecond
	for {
		tx, err := db.BeginTx(ctx, nil)
		if err == nil || !IsBusy(err) || time.Now().After(deadline) {
			return tx, err
		}
		select {
		case <-ctx.Done():
			return nil, err
		case <-time.After(wait):
		}
		wait = min(2*wait, 50*time.Millisecond)
	}
}

// IsBusy reports whether err is SQLite's SQLITE_BUSY: another connection
// holds the lock.
func IsBusy(err error) bool {
	var se *msqlite.Error
	return errors.As(err, &se) && se.Code()&0xff == sqlite3.SQLITE_BUSY
}

// Close closes both pools.
func (s SQLite) Close() error { return errors.Join(s.Write.Close(), s.Read.Close()) }

func sqliteDSN(path string, busy time.Duration, readOnly bool, pragmas []string) string {
	q := url.Values{}
	q.Set("_busy_timeout", fmt.Sprint(busy.Milliseconds()))
	q.Set("_journal_mode", "WAL")
	q.Set("_synchronous", "NORMAL")
	if readOnly {
		q.Set("_query_only", "1")
	} else {
		q.Set("_txlock", "immediate")
		for _, p := range pragmas {
			q.Add("_pragma", p)
		}
	}
	u := url.URL{Scheme: "file", Opaque: (&url.URL{Path: path}).EscapedPath(), RawQuery: q.Encode()}
	return u.String()
}
