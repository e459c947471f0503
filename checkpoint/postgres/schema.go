package postgres

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/loomwork/loom/checkpoint/internal/sqlrow"
)

// schemaSQL creates the tables of schema version 1. Times are Unix
// nanoseconds; state, events and turns are kept as the caller's bytes
// (bytea, not jsonb, which would reorder keys); meta is jsonb so that Runs
// filters with @>.
const schemaSQL = `
CREATE TABLE {schema} (
	name    text   PRIMARY KEY,
	version bigint NOT NULL
);
CREATE TABLE {runs} (
	run_id     text   PRIMARY KEY,
	head       bigint NOT NULL,
	kind       text   NOT NULL,
	created_ns bigint NOT NULL,
	updated_ns bigint NOT NULL,
	meta       jsonb
);
CREATE INDEX ON {runs} (updated_ns DESC, run_id);
CREATE TABLE {checkpoints} (
	run_id  text    NOT NULL,
	seq     bigint  NOT NULL,
	format  integer NOT NULL,
	kind    text    NOT NULL,
	time_ns bigint  NOT NULL,
	state   bytea,
	events  bytea,
	meta    jsonb,
	PRIMARY KEY (run_id, seq)
);
CREATE TABLE {sessions} (
	session_id text   PRIMARY KEY,
	turns      bigint NOT NULL,
	created_ns bigint NOT NULL,
	updated_ns bigint NOT NULL
);
CREATE INDEX ON {sessions} (updated_ns DESC, session_id);
CREATE TABLE {session_turns} (
	session_id text    NOT NULL,
	turn       bigint  NOT NULL,
	format     integer NOT NULL,
	body       bytea   NOT NULL,
	PRIMARY KEY (session_id, turn)
);
`

// lockKey is the first half of the advisory lock that serialises schema
// set-up across processes; the second half is a hash of the schema name.
const lockKey = 0x6c6f6f6d // "loom"

// migrate creates the schema, or checks that an existing one is loom's and
// not newer than this build, in one transaction holding an advisory lock,
// so that processes opening a new database at once create it once.
func (d *db) migrate(ctx context.Context) error {
	return d.inTx(ctx, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock($1, hashtext($2))`, lockKey, d.cfg.Schema); err != nil {
			return fmt.Errorf("take the schema lock: %w", err)
		}
		if d.cfg.Schema != "" {
			if _, err := tx.Exec(ctx, `CREATE SCHEMA IF NOT EXISTS `+pgx.Identifier{d.cfg.Schema}.Sanitize()); err != nil {
				return fmt.Errorf("create schema %q: %w", d.cfg.Schema, err)
			}
		}
		columns, err := d.columns(ctx, tx)
		if err != nil {
			return err
		}
		if _, ok := columns[sqlrow.TableSchema]; !ok {
			for _, t := range sqlrow.Tables {
				if _, ok := columns[t]; ok {
					return sqlrow.ForeignTable(t, "it exists but "+sqlrow.TableSchema+" does not")
				}
			}
			if _, err := tx.Exec(ctx, d.q(schemaSQL)); err != nil {
				return fmt.Errorf("create the tables: %w", err)
			}
			_, err := tx.Exec(ctx, d.q(`INSERT INTO {schema} (name, version) VALUES ($1, $2)`), sqlrow.SchemaName, sqlrow.SchemaVersion)
			return err
		}
		for _, t := range sqlrow.Tables {
			have, ok := columns[t]
			if !ok {
				return sqlrow.ForeignTable(t, "it is missing though "+sqlrow.TableSchema+" says the schema is there")
			}
			if missing := sqlrow.MissingColumns(t, have); len(missing) > 0 {
				return sqlrow.ForeignTable(t, "it has no column "+strings.Join(missing, ", "))
			}
			if t == sqlrow.TableSchema {
				if err := d.checkVersion(ctx, tx); err != nil {
					return err
				}
			}
		}
		return nil
	})
}

// columns returns the columns of those of loom's tables that exist in the
// store's schema.
func (d *db) columns(ctx context.Context, tx pgx.Tx) (map[string][]string, error) {
	rows, err := tx.Query(ctx, `
SELECT table_name::text, column_name::text FROM information_schema.columns
WHERE table_schema = coalesce(nullif($1, ''), current_schema()) AND table_name = ANY($2)`, d.cfg.Schema, sqlrow.Tables)
	if err != nil {
		return nil, fmt.Errorf("read the schema: %w", err)
	}
	out := map[string][]string{}
	var table, column string
	_, err = pgx.ForEachRow(rows, []any{&table, &column}, func() error {
		out[table] = append(out[table], column)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("read the schema: %w", err)
	}
	return out, nil
}

// checkVersion reads loom's row in the schema table.
func (d *db) checkVersion(ctx context.Context, tx pgx.Tx) error {
	var version int64
	err := tx.QueryRow(ctx, d.q(`SELECT version FROM {schema} WHERE name = $1`), sqlrow.SchemaName).Scan(&version)
	if errors.Is(err, pgx.ErrNoRows) {
		return sqlrow.ForeignTable(sqlrow.TableSchema, "it has no "+sqlrow.SchemaName+" row")
	}
	if err != nil {
		return fmt.Errorf("read the schema version: %w", err)
	}
	if version > sqlrow.SchemaVersion {
		return sqlrow.TooNew(version)
	}
	return nil
}
