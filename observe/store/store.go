package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"

	"github.com/loomwork/loom/internal/userfile"
	_ "modernc.org/sqlite" // registers the "sqlite" database/sql driver
)

// Store is a trace database. It is safe for concurrent use, and several
// processes may open the same file at once.
type Store struct {
	path  string
	cfg   config
	write *sql.DB   // one connection; transactions begin IMMEDIATE
	read  *sql.DB   // read-only connections for queries
	stmts *stmts    // prepared on the write pool as writes need them
	texts textCache // shared texts stored or found
	spool spoolIngest

	mu     sync.Mutex // guards closed and serialises writes of this process
	closed bool
}

// Open opens the trace database at cfg.Path, creating the file, its folder
// and its schema when missing; an empty Path means [DefaultPath]. It first
// stores what short-lived processes left in the database's spool folder
// (see [Spool]).
func Open(ctx context.Context, c Config) (*Store, error) {
	cfg, err := c.resolve()
	if err != nil {
		return nil, err
	}
	path := c.Path
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
	// A new file gets 16 KiB pages (an existing one keeps its own): a write
	// of many runs then writes a quarter of the WAL frames, one system call
	// each, and checkpoints copy fewer pages.
	pools, err := userfile.OpenSQLite(path, cfg.busyTimeout, "page_size(16384)")
	if err != nil {
		return nil, fmt.Errorf("store: open %s: %w", path, err)
	}
	if err := migrate(ctx, pools.Write, cfg.busyTimeout); err != nil {
		pools.Close()
		return nil, fmt.Errorf("%w (database %s)", err, path)
	}
	s := &Store{path: path, cfg: cfg, write: pools.Write, read: pools.Read, stmts: newStmts(pools.Write), texts: textCache{ids: map[string]int64{}}}
	if err := s.ingestSpool(ctx); err != nil {
		s.Close()
		return nil, fmt.Errorf("%w (database %s)", err, path)
	}
	return s, nil
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
