package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/loomwork/loom/checkpoint/internal/sqlrow"
	"github.com/loomwork/loom/internal/userfile"
)

// schemaSQL creates the tables of schema version 1. Times are Unix
// nanoseconds; state, events and turns are kept as the caller's bytes.
const schemaSQL = `
CREATE TABLE loom_schema (
	name    TEXT PRIMARY KEY,
	version INTEGER NOT NULL
);
CREATE TABLE loom_runs (
	run_id     TEXT    PRIMARY KEY,
	head       INTEGER NOT NULL,
	kind       TEXT    NOT NULL,
	created_ns INTEGER NOT NULL,
	updated_ns INTEGER NOT NULL,
	meta       TEXT
);
CREATE INDEX loom_runs_updated ON loom_runs (updated_ns DESC, run_id);
CREATE TABLE loom_checkpoints (
	run_id  TEXT    NOT NULL,
	seq     INTEGER NOT NULL,
	format  INTEGER NOT NULL,
	kind    TEXT    NOT NULL,
	time_ns INTEGER NOT NULL,
	state   BLOB,
	events  BLOB,
	meta    TEXT,
	PRIMARY KEY (run_id, seq)
) WITHOUT ROWID;
CREATE TABLE loom_sessions (
	session_id TEXT    PRIMARY KEY,
	turns      INTEGER NOT NULL,
	created_ns INTEGER NOT NULL,
	updated_ns INTEGER NOT NULL
);
CREATE INDEX loom_sessions_updated ON loom_sessions (updated_ns DESC, session_id);
CREATE TABLE loom_session_turns (
	session_id TEXT    NOT NULL,
	turn       INTEGER NOT NULL,
	format     INTEGER NOT NULL,
	body       BLOB    NOT NULL,
	PRIMARY KEY (session_id, turn)
) WITHOUT ROWID;
`

// migrate creates the schema in an empty database, or checks that an
// existing one is loom's and not newer than this build, in one IMMEDIATE
// transaction so that two processes opening a new file at once do not
// both create it.
func migrate(ctx context.Context, db *sql.DB, busy time.Duration) error {
	tx, err := userfile.BeginWrite(ctx, db, busy)
	if err != nil {
		return fmt.Errorf("begin the schema check: %w", err)
	}
	defer tx.Rollback() //nolint:errcheck // after Commit this is a no-op
	present := map[string]bool{}
	for _, t := range sqlrow.Tables {
		var n int
		if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = ?`, t).Scan(&n); err != nil {
			return fmt.Errorf("read the schema: %w", err)
		}
		present[t] = n > 0
	}
	if !present[sqlrow.TableSchema] {
		for _, t := range sqlrow.Tables {
			if present[t] {
				return sqlrow.ForeignTable(t, "it exists but "+sqlrow.TableSchema+" does not")
			}
		}
		if _, err := tx.ExecContext(ctx, schemaSQL); err != nil {
			return fmt.Errorf("create the schema: %w", err)
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO loom_schema (name, version) VALUES (?, ?)`, sqlrow.SchemaName, sqlrow.SchemaVersion); err != nil {
			return fmt.Errorf("record the schema version: %w", err)
		}
		return tx.Commit()
	}
	if err := checkColumns(ctx, tx, sqlrow.TableSchema); err != nil {
		return err
	}
	var version int64
	err = tx.QueryRowContext(ctx, `SELECT version FROM loom_schema WHERE name = ?`, sqlrow.SchemaName).Scan(&version)
	if errors.Is(err, sql.ErrNoRows) {
		return sqlrow.ForeignTable(sqlrow.TableSchema, "it has no "+sqlrow.SchemaName+" row")
	}
	if err != nil {
		return fmt.Errorf("read the schema version: %w", err)
	}
	if version > sqlrow.SchemaVersion {
		return sqlrow.TooNew(version)
	}
	for _, t := range sqlrow.Tables[1:] {
		if !present[t] {
			return sqlrow.ForeignTable(t, "it is missing though "+sqlrow.TableSchema+" says the schema is there")
		}
		if err := checkColumns(ctx, tx, t); err != nil {
			return err
		}
	}
	return tx.Commit()
}

// checkColumns reports a table that lacks one of loom's columns.
func checkColumns(ctx context.Context, tx *sql.Tx, table string) error {
	rows, err := tx.QueryContext(ctx, `SELECT name FROM pragma_table_info(?)`, table)
	if err != nil {
		return fmt.Errorf("read the columns of %s: %w", table, err)
	}
	defer rows.Close()
	var have []string
	for rows.Next() {
		var c string
		if err := rows.Scan(&c); err != nil {
			return fmt.Errorf("read the columns of %s: %w", table, err)
		}
		have = append(have, c)
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("read the columns of %s: %w", table, err)
	}
	if missing := sqlrow.MissingColumns(table, have); len(missing) > 0 {
		return sqlrow.ForeignTable(table, "it has no column "+strings.Join(missing, ", "))
	}
	return nil
}
