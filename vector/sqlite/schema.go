package sqlite

import (
	"context"
	"database/sql"
	"encoding/binary"
	"fmt"
	"math"

	"github.com/loomwork/loom/internal/userfile"
)

// sqliteMigrations are the schema versions of the vector database, applied
// in order; PRAGMA user_version counts those applied. Vectors are stored
// as little-endian float32 unit vectors, metadata as a JSON object.
var migrations = []string{
	`
CREATE TABLE IF NOT EXISTS vector_collections (
	name     TEXT PRIMARY KEY,
	dims     INTEGER NOT NULL,
	embedder TEXT NOT NULL DEFAULT ''
);
CREATE TABLE IF NOT EXISTS vector_documents (
	collection TEXT NOT NULL,
	id         TEXT NOT NULL,
	text       TEXT NOT NULL,
	metadata   TEXT,
	vector     BLOB NOT NULL,
	PRIMARY KEY (collection, id)
);
`,
}

// migrate brings db to the newest schema in one IMMEDIATE
// transaction, so two processes creating a file at once do not clash.
func migrate(ctx context.Context, db *sql.DB) error {
	tx, err := userfile.BeginWrite(ctx, db, busy)
	if err != nil {
		return fmt.Errorf("begin schema migration: %w", err)
	}
	defer tx.Rollback() //nolint:errcheck // a no-op after Commit
	var version int
	if err := tx.QueryRowContext(ctx, "PRAGMA user_version").Scan(&version); err != nil {
		return fmt.Errorf("read schema version: %w", err)
	}
	if version > len(migrations) {
		return fmt.Errorf("schema version %d is newer than this build's %d: upgrade loom or use another file", version, len(migrations))
	}
	if version == len(migrations) {
		return nil
	}
	for i := version; i < len(migrations); i++ {
		if _, err := tx.ExecContext(ctx, migrations[i]); err != nil {
			return fmt.Errorf("migrate schema to version %d: %w", i+1, err)
		}
	}
	if _, err := tx.ExecContext(ctx, fmt.Sprintf("PRAGMA user_version = %d", len(migrations))); err != nil {
		return fmt.Errorf("set schema version: %w", err)
	}
	return tx.Commit()
}

// encodeVector returns v as little-endian float32 bytes.
func encodeVector(v []float32) []byte {
	b := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(x))
	}
	return b
}

// decodeVector appends the floats of a little-endian float32 blob to dst.
func decodeVector(dst []float32, b []byte) []float32 {
	for i := 0; i+4 <= len(b); i += 4 {
		dst = append(dst, math.Float32frombits(binary.LittleEndian.Uint32(b[i:])))
	}
	return dst
}
