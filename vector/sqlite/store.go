package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"net/url"
	"os"
	"path/filepath"
	"time"

	_ "modernc.org/sqlite" // registers the "sqlite" database/sql driver

	"github.com/loomwork/loom/vector"
)

// DefaultCollection is the collection [Open] opens when none is named.
const DefaultCollection = "default"

// Config configures [Open].
type Config struct {
	vector.MemoryConfig
	// Path is the database file: "" means [DefaultPath]. The file and its
	// folder are created when missing.
	Path string
	// Collection names a set of documents within the file: "" means
	// [DefaultCollection]. Each collection has its own dimensions.
	Collection string
}

// Store is the exact store of [vector.Memory], persisted in a SQLite file
// (modernc.org/sqlite, no cgo): every Upsert and Delete is written in one
// transaction before the in-memory index changes, and [Open] loads the
// collection back into memory, so it survives a restart. Searches never
// touch the database: vectors and metadata are scanned in memory, and the
// database only keeps them.
//
// Store is safe for concurrent use within one process, with the locking
// of [vector.Memory]. Several processes may open one file, but each holds
// its own copy in memory: a process sees another's writes only when it
// opens the collection again, so let one process write a collection at a
// time.
type Store struct {
	*vector.Memory
	db *db
}

var _ vector.Store = (*Store)(nil)

// Open opens a collection of the vector database, creating the file, the
// schema and the collection when missing, and loads its documents into
// memory. The dimensions come from cfg.Dimensions, the embedder, or the
// stored collection; all that are known must agree. A collection stores
// the name of the embedder that filled it, and opening it with a different
// embedder fails with [vector.ErrEmbedderMismatch], since their vectors do
// not compare.
func Open(ctx context.Context, cfg Config) (*Store, error) {
	o, err := cfg.MemoryConfig.Resolve()
	if err != nil {
		return nil, err
	}
	path := cfg.Path
	if path == "" {
		if path, err = DefaultPath(); err != nil {
			return nil, err
		}
	}
	coll := cfg.Collection
	if coll == "" {
		coll = DefaultCollection
	}
	if dir := filepath.Dir(path); dir != "" {
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return nil, fmt.Errorf("vector/sqlite: create the folder of %s: %w (choose another file with Config.Path or %s)", path, err, PathEnv)
		}
	}
	sdb, err := sql.Open("sqlite", dsn(path))
	if err != nil {
		return nil, fmt.Errorf("vector/sqlite: open %s: %w", path, err)
	}
	sdb.SetMaxOpenConns(1)
	sdb.SetMaxIdleConns(1)
	sdb.SetConnMaxIdleTime(0)
	sdb.SetConnMaxLifetime(0)
	d := &db{db: sdb, path: path, collection: coll}
	m, err := d.open(ctx, o)
	if err != nil {
		sdb.Close()
		return nil, fmt.Errorf("vector/sqlite: open collection %q of %s: %w", coll, path, err)
	}
	return &Store{Memory: m, db: d}, nil
}

// Path returns the database file's path.
func (s *Store) Path() string { return s.db.path }

// Collection returns the name of the open collection.
func (s *Store) Collection() string { return s.db.collection }

// db is one collection of a database file: the [vector.Persister] behind a
// [Store].
type db struct {
	db         *sql.DB
	path       string
	collection string
}

var _ vector.Persister = (*db)(nil)

// open migrates the schema, creates or checks the collection and loads it
// into a persistent memory store.
func (d *db) open(ctx context.Context, o vector.MemoryConfig) (*vector.Memory, error) {
	if err := migrate(ctx, d.db); err != nil {
		return nil, err
	}
	embName := ""
	if o.Embedder != nil {
		embName = o.Embedder.Name()
	}
	tx, err := d.db.BeginTx(ctx, nil)
	if err != nil {
		return nil, err
	}
	defer tx.Rollback() //nolint:errcheck // a no-op after Commit
	var dims int
	var stored string
	err = tx.QueryRowContext(ctx, `SELECT dims, embedder FROM vector_collections WHERE name = ?`, d.collection).Scan(&dims, &stored)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		if o.Dimensions == 0 {
			return nil, errors.New("a new collection needs dimensions: set MemoryConfig.Dimensions or MemoryConfig.Embedder")
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO vector_collections (name, dims, embedder) VALUES (?, ?, ?)`, d.collection, o.Dimensions, embName); err != nil {
			return nil, err
		}
	case err != nil:
		return nil, err
	default:
		if o.Dimensions != 0 && o.Dimensions != dims {
			return nil, &vector.DimensionError{Want: dims, Got: o.Dimensions, What: "the options"}
		}
		o.Dimensions = dims
		switch {
		case embName != "" && stored != "" && embName != stored:
			return nil, fmt.Errorf("%w: the collection was embedded with %s, not %s: open it with the same embedder, or use another collection",
				vector.ErrEmbedderMismatch, stored, embName)
		case embName != "" && stored == "":
			if _, err := tx.ExecContext(ctx, `UPDATE vector_collections SET embedder = ? WHERE name = ?`, embName, d.collection); err != nil {
				return nil, err
			}
		}
	}
	var n int
	if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM vector_documents WHERE collection = ?`, d.collection).Scan(&n); err != nil {
		return nil, err
	}
	m, err := vector.NewPersistentMemory(o, vector.Persistence{Persister: d, Count: n, Stored: d.load(ctx, tx, o.Dimensions)})
	if err != nil {
		return nil, err
	}
	if err := tx.Commit(); err != nil {
		return nil, err
	}
	return m, nil
}

// load yields the collection's documents, read in tx.
func (d *db) load(ctx context.Context, tx *sql.Tx, dims int) iter.Seq2[vector.StoredDocument, error] {
	return func(yield func(vector.StoredDocument, error) bool) {
		rows, err := tx.QueryContext(ctx, `SELECT id, text, metadata, vector FROM vector_documents WHERE collection = ?`, d.collection)
		if err != nil {
			yield(vector.StoredDocument{}, err)
			return
		}
		defer rows.Close()
		unit := make([]float32, 0, dims)
		for rows.Next() {
			var doc vector.StoredDocument
			var md sql.NullString
			var blob []byte
			if err := rows.Scan(&doc.ID, &doc.Text, &md, &blob); err != nil {
				yield(doc, err)
				return
			}
			if len(blob) != 4*dims {
				yield(doc, fmt.Errorf("document %q has a vector of %d bytes, want %d: the file is damaged", doc.ID, len(blob), 4*dims))
				return
			}
			if md.Valid {
				if err := json.Unmarshal([]byte(md.String), &doc.Metadata); err != nil {
					yield(doc, fmt.Errorf("document %q: metadata: %w", doc.ID, err))
					return
				}
			}
			unit = decodeVector(unit[:0], blob)
			doc.Vector = unit
			if !yield(doc, nil) {
				return
			}
		}
		if err := rows.Err(); err != nil {
			yield(vector.StoredDocument{}, err)
		}
	}
}

// Upsert writes docs in one transaction.
func (d *db) Upsert(ctx context.Context, docs []vector.StoredDocument) error {
	tx, err := d.db.BeginTx(ctx, nil)
	if err != nil {
		return d.fail("begin upsert", err)
	}
	defer tx.Rollback() //nolint:errcheck // a no-op after Commit
	stmt, err := tx.PrepareContext(ctx, `INSERT INTO vector_documents (collection, id, text, metadata, vector) VALUES (?, ?, ?, ?, ?)
ON CONFLICT (collection, id) DO UPDATE SET text = excluded.text, metadata = excluded.metadata, vector = excluded.vector`)
	if err != nil {
		return d.fail("prepare upsert", err)
	}
	defer stmt.Close()
	for _, doc := range docs {
		var md any
		if doc.Metadata != nil {
			b, err := json.Marshal(doc.Metadata)
			if err != nil {
				return d.fail("encode metadata of "+doc.ID, err)
			}
			md = string(b)
		}
		if _, err := stmt.ExecContext(ctx, d.collection, doc.ID, doc.Text, md, encodeVector(doc.Vector)); err != nil {
			return d.fail("write "+doc.ID, err)
		}
	}
	if err := tx.Commit(); err != nil {
		return d.fail("commit upsert", err)
	}
	return nil
}

// Delete removes ids in one transaction.
func (d *db) Delete(ctx context.Context, ids []string) error {
	tx, err := d.db.BeginTx(ctx, nil)
	if err != nil {
		return d.fail("begin delete", err)
	}
	defer tx.Rollback() //nolint:errcheck // a no-op after Commit
	stmt, err := tx.PrepareContext(ctx, `DELETE FROM vector_documents WHERE collection = ? AND id = ?`)
	if err != nil {
		return d.fail("prepare delete", err)
	}
	defer stmt.Close()
	for _, id := range ids {
		if _, err := stmt.ExecContext(ctx, d.collection, id); err != nil {
			return d.fail("delete "+id, err)
		}
	}
	if err := tx.Commit(); err != nil {
		return d.fail("commit delete", err)
	}
	return nil
}

// Close closes the database.
func (d *db) Close() error { return d.db.Close() }

func (d *db) fail(what string, err error) error {
	return fmt.Errorf("vector/sqlite: %s: %s in %s: %w", d.collection, what, d.path, err)
}

// busy is how long the store waits for another process's lock.
const busy = 10 * time.Second

// dsn builds the connection string: WAL journal, a busy timeout for other
// processes' writes, NORMAL sync and IMMEDIATE write transactions.
func dsn(path string) string {
	q := url.Values{}
	q.Set("_pragma", fmt.Sprintf("busy_timeout(%d)", busy.Milliseconds()))
	q.Add("_pragma", "journal_mode(WAL)")
	q.Add("_pragma", "synchronous(NORMAL)")
	q.Set("_txlock", "immediate")
	u := url.URL{Scheme: "file", Opaque: (&url.URL{Path: path}).EscapedPath(), RawQuery: q.Encode()}
	return u.String()
}
