package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"sync"

	_ "modernc.org/sqlite" // registers the "sqlite" database/sql driver
)

// Store is a trace database. It is safe for concurrent use, and several
// processes may open the same file at once.
type Store struct {
	path  string
	cfg   config
	write *sql.DB   // one connection; transactions begin IMMEDIATE
	read  *sql.DB   // read-only connections for queries
	stmts *stmts    // prepared on write
	texts textCache // shared texts stored or found

	mu     sync.Mutex // guards closed and serialises writes of this process
	closed bool
}

// Open opens the trace database at path, creating the file, its folder and
// its schema when missing; an empty path means [DefaultPath].
func Open(ctx context.Context, path string, opts ...Option) (*Store, error) {
	cfg := defaultConfig()
	for _, o := range opts {
		o(&cfg)
	}
	if path == "" {
		p, err := DefaultPath()
		if err != nil {
			return nil, err
		}
		path = p
	}
	if dir := filepath.Dir(path); dir != "" {
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return nil, fmt.Errorf("store: create the folder of the trace database: %w (choose another file with --db or %s)", err, PathEnv)
		}
	}
	write, err := sql.Open("sqlite", dsn(path, cfg, false))
	if err != nil {
		return nil, fmt.Errorf("store: open %s: %w", path, err)
	}
	write.SetMaxOpenConns(1)
	write.SetMaxIdleConns(1)
	write.SetConnMaxLifetime(0)
	write.SetConnMaxIdleTime(0)
	if err := migrate(ctx, write); err != nil {
		write.Close()
		return nil, fmt.Errorf("%w (database %s)", err, path)
	}
	st, err := prepareStmts(ctx, write)
	if err != nil {
		write.Close()
		return nil, fmt.Errorf("%w (database %s)", err, path)
	}
	read, err := sql.Open("sqlite", dsn(path, cfg, true))
	if err != nil {
		st.close()
		write.Close()
		return nil, fmt.Errorf("store: open %s for reading: %w", path, err)
	}
	read.SetMaxOpenConns(4)
	read.SetMaxIdleConns(2)
	return &Store{path: path, cfg: cfg, write: write, read: read, stmts: st, texts: textCache{ids: map[string]int64{}}}, nil
}

// dsn builds the connection string: WAL journal, busy timeout, NORMAL sync
// (durable across process crashes, which is what traces need), IMMEDIATE
// write transactions and 16 KiB pages for a new file, and query_only for
// the read pool.
func dsn(path string, cfg config, readOnly bool) string {
	q := url.Values{}
	q.Set("_busy_timeout", fmt.Sprint(cfg.busyTimeout.Milliseconds()))
	q.Set("_journal_mode", "WAL")
	q.Set("_synchronous", "NORMAL")
	if readOnly {
		q.Set("_query_only", "1")
	} else {
		q.Set("_txlock", "immediate")
		// A new file gets 16 KiB pages (an existing one keeps its own): a
		// write of many runs then writes a quarter of the WAL frames, one
		// system call each, and checkpoints copy fewer pages.
		q.Set("_pragma", "page_size(16384)")
	}
	u := url.URL{Scheme: "file", Opaque: (&url.URL{Path: path}).EscapedPath(), RawQuery: q.Encode()}
	return u.String()
}

// Path returns the database file's path.
func (s *Store) Path() string { return s.path }

// Close closes the database. Closing twice is not an error.
func (s *Store) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil
	}
	s.closed = true
	return errors.Join(s.stmts.close(), s.write.Close(), s.read.Close())
}

func (s *Store) isClosed() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.closed
}
