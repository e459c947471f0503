package userfile

import (
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"time"
)

// SQLite is a local database's two pools: one write connection, whose
// transactions begin IMMEDIATE (so a compare-and-swap holds across
// processes), and a small pool of read-only connections.
type SQLite struct {
	Write, Read *sql.DB
}

// OpenSQLite opens the pools of the SQLite file at path with the "sqlite"
// driver, which the caller registers (modernc.org/sqlite): WAL journal,
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
