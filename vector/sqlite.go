package vector

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"time"

	_ "modernc.org/sqlite" // registers the "sqlite" database/sql driver
)

// DefaultCollection is the collection [OpenSQLite] opens when none is
// named.
const DefaultCollection = "default"

// SQLiteOptions configure [OpenSQLite].
type SQLiteOptions struct {
	Options
	// Path is the database file: "" means [DefaultSQLitePath]. The file
	// and its folder are created when missing.
	Path string
	// Collection names a set of documents within the file: "" means
	// [DefaultCollection]. Each collection has its own dimensions.
	Collection string
}

// SQLite is the exact store of [Memory], persisted in a SQLite file
// (modernc.org/sqlite, no cgo): every Upsert and Delete is written in one
// transaction before the in-memory index changes, and [OpenSQLite] loads
// the collection back into memory, so it survives a restart. Searches
// never touch the database: vectors and metadata are scanned in memory,
// and the database only keeps them.
//
// SQLite is safe for concurrent use within one process, with the locking
// of [Memory]. Several processes may open one file, but each holds its own
// copy in memory: a process sees another's writes only when it opens the
// collection again, so let one process write a collection at a time.
type SQLite struct {
	*local
	db         *sql.DB
	path       string
	collection string
}

var _ Store = (*SQLite)(nil)

// OpenSQLite opens a collection of the vector database, creating the file,
// the schema and the collection when missing, and loads its documents into
// memory. The dimensions come from opts.Dimensions, the embedder, or the
// stored collection; all that are known must agree. A collection stores
// the name of the embedder that filled it, and opening it with a different
// embedder fails, since their vectors do not compare.
func OpenSQLite(ctx context.Context, opts SQLiteOptions) (*SQLite, error) {
	o, err := opts.Options.resolve("OpenSQLite")
	if err != nil {
		return nil, err
	}
	path := opts.Path
	if path == "" {
		if path, err = DefaultSQLitePath(); err != nil {
			return nil, err
		}
	}
	coll := opts.Collection
	if coll == "" {
		coll = DefaultCollection
	}
	if dir := filepath.Dir(path); dir != "" {
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return nil, fmt.Errorf("vector: create the folder of %s: %w (choose another file with SQLiteOptions.Path or %s)", path, err, SQLitePathEnv)
		}
	}
	db, err := sql.Open("sqlite", sqliteDSN(path))
	if err != nil {
		return nil, fmt.Errorf("vector: open %s: %w", path, err)
	}
	db.SetMaxOpenConns(1)
	db.SetMaxIdleConns(1)
	db.SetConnMaxIdleTime(0)
	db.SetConnMaxLifetime(0)
	s, err := openCollection(ctx, db, path, coll, o)
	if err != nil {
		db.Close()
		return nil, fmt.Errorf("vector: open collection %q of %s: %w", coll, path, err)
	}
	return s, nil
}

func openCollection(ctx context.Context, db *sql.DB, path, coll string, o Options) (*SQLite, error) {
	if err := migrateSQLite(ctx, db); err != nil {
		return nil, err
	}
	embName := ""
	if o.Embedder != nil {
		embName = o.Embedder.Name()
	}
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return nil, err
	}
	defer tx.Rollback() //nolint:errcheck // a no-op after Commit
	var dims int
	var stored string
	err = tx.QueryRowContext(ctx, `SELECT dims, embedder FROM vector_collections WHERE name = ?`, coll).Scan(&dims, &stored)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		if o.Dimensions == 0 {
			return nil, errors.New("a new collection needs dimensions: set Options.Dimensions or Options.Embedder")
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO vector_collections (name, dims, embedder) VALUES (?, ?, ?)`, coll, o.Dimensions, embName); err != nil {
			return nil, err
		}
	case err != nil:
		return nil, err
	default:
		if o.Dimensions != 0 && o.Dimensions != dims {
			return nil, &DimensionError{Want: dims, Got: o.Dimensions, What: "the options"}
		}
		o.Dimensions = dims
		switch {
		case embName != "" && stored != "" && embName != stored:
			return nil, fmt.Errorf("%w: the collection was embedded with %s, not %s: open it with the same embedder, or use another collection",
				ErrEmbedderMismatch, stored, embName)
		case embName != "" && stored == "":
			if _, err := tx.ExecContext(ctx, `UPDATE vector_collections SET embedder = ? WHERE name = ?`, embName, coll); err != nil {
				return nil, err
			}
		}
	}
	s := &SQLite{local: newLocal(o), db: db, path: path, collection: coll}
	if err := s.load(ctx, tx); err != nil {
		return nil, err
	}
	if err := tx.Commit(); err != nil {
		return nil, err
	}
	s.persist = s
	return s, nil
}

// load reads the collection's documents into the index.
func (s *SQLite) load(ctx context.Context, tx *sql.Tx) error {
	var n int
	if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM vector_documents WHERE collection = ?`, s.collection).Scan(&n); err != nil {
		return err
	}
	s.idx.reserve(n)
	rows, err := tx.QueryContext(ctx, `SELECT id, text, metadata, vector FROM vector_documents WHERE collection = ?`, s.collection)
	if err != nil {
		return err
	}
	defer rows.Close()
	dims := s.idx.dims
	unit := make([]float32, 0, dims)
	for rows.Next() {
		var e entry
		var md sql.NullString
		var blob []byte
		if err := rows.Scan(&e.id, &e.text, &md, &blob); err != nil {
			return err
		}
		if len(blob) != 4*dims {
			return fmt.Errorf("document %q has a vector of %d bytes, want %d: the file is damaged", e.id, len(blob), 4*dims)
		}
		if md.Valid {
			var raw map[string]any
			if err := json.Unmarshal([]byte(md.String), &raw); err != nil {
				return fmt.Errorf("document %q: metadata: %w", e.id, err)
			}
			if e.metadata, err = NormalizeMetadata(raw); err != nil {
				return err
			}
		}
		unit = decodeVector(unit[:0], blob)
		s.idx.put(e, unit, 1)
	}
	return rows.Err()
}

// upsert writes rows in one transaction.
func (s *SQLite) upsert(ctx context.Context, rows []row) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return s.fail("begin upsert", err)
	}
	defer tx.Rollback() //nolint:errcheck // a no-op after Commit
	stmt, err := tx.PrepareContext(ctx, `INSERT INTO vector_documents (collection, id, text, metadata, vector) VALUES (?, ?, ?, ?, ?)
ON CONFLICT (collection, id) DO UPDATE SET text = excluded.text, metadata = excluded.metadata, vector = excluded.vector`)
	if err != nil {
		return s.fail("prepare upsert", err)
	}
	defer stmt.Close()
	for _, r := range rows {
		var md any
		if r.metadata != nil {
			b, err := json.Marshal(r.metadata)
			if err != nil {
				return s.fail("encode metadata of "+r.id, err)
			}
			md = string(b)
		}
		if _, err := stmt.ExecContext(ctx, s.collection, r.id, r.text, md, encodeVector(r.vec, r.inv)); err != nil {
			return s.fail("write "+r.id, err)
		}
	}
	if err := tx.Commit(); err != nil {
		return s.fail("commit upsert", err)
	}
	return nil
}

// delete removes ids in one transaction.
func (s *SQLite) delete(ctx context.Context, ids []string) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return s.fail("begin delete", err)
	}
	defer tx.Rollback() //nolint:errcheck // a no-op after Commit
	stmt, err := tx.PrepareContext(ctx, `DELETE FROM vector_documents WHERE collection = ? AND id = ?`)
	if err != nil {
		return s.fail("prepare delete", err)
	}
	defer stmt.Close()
	for _, id := range ids {
		if _, err := stmt.ExecContext(ctx, s.collection, id); err != nil {
			return s.fail("delete "+id, err)
		}
	}
	if err := tx.Commit(); err != nil {
		return s.fail("commit delete", err)
	}
	return nil
}

func (s *SQLite) close() error { return s.db.Close() }

func (s *SQLite) fail(what string, err error) error {
	return fmt.Errorf("vector: %s: %s in %s: %w", s.collection, what, s.path, err)
}

// Path returns the database file's path.
func (s *SQLite) Path() string { return s.path }

// Collection returns the name of the open collection.
func (s *SQLite) Collection() string { return s.collection }

// sqliteBusy is how long the store waits for another process's lock.
const sqliteBusy = 10 * time.Second

// sqliteDSN builds the connection string: WAL journal, a busy timeout for
// other processes' writes, NORMAL sync and IMMEDIATE write transactions.
func sqliteDSN(path string) string {
	q := url.Values{}
	q.Set("_pragma", fmt.Sprintf("busy_timeout(%d)", sqliteBusy.Milliseconds()))
	q.Add("_pragma", "journal_mode(WAL)")
	q.Add("_pragma", "synchronous(NORMAL)")
	q.Set("_txlock", "immediate")
	u := url.URL{Scheme: "file", Opaque: (&url.URL{Path: path}).EscapedPath(), RawQuery: q.Encode()}
	return u.String()
}
