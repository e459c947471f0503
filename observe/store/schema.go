package store

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/loomwork/loom/internal/userfile"
)

// migrations[i] brings the schema from user_version i to i+1. Append only:
// never edit a migration that has shipped.
var migrations = []string{
	// 1: spans, per-trace summaries and counters.
	`
CREATE TABLE IF NOT EXISTS spans (
	trace_id       TEXT    NOT NULL,
	span_id        TEXT    NOT NULL,
	parent_id      TEXT    NOT NULL DEFAULT '',
	name           TEXT    NOT NULL,
	kind           TEXT    NOT NULL DEFAULT '',
	start_ns       INTEGER NOT NULL,
	end_ns         INTEGER NOT NULL,
	status_code    TEXT    NOT NULL DEFAULT 'unset',
	status_message TEXT    NOT NULL DEFAULT '',
	attributes     TEXT    NOT NULL DEFAULT '{}',
	events         TEXT    NOT NULL DEFAULT '[]',
	scope          TEXT    NOT NULL DEFAULT '',
	UNIQUE (trace_id, span_id)
);
CREATE TABLE IF NOT EXISTS traces (
	trace_id            TEXT    PRIMARY KEY,
	start_ns            INTEGER NOT NULL,
	end_ns              INTEGER NOT NULL,
	status              TEXT    NOT NULL DEFAULT 'running',
	error_message       TEXT    NOT NULL DEFAULT '',
	root_span_id        TEXT    NOT NULL DEFAULT '',
	root_name           TEXT    NOT NULL DEFAULT '',
	agent               TEXT    NOT NULL DEFAULT '',
	agent_span_id       TEXT    NOT NULL DEFAULT '',
	agent_start_ns      INTEGER,
	agent_end_ns        INTEGER,
	input_preview       TEXT    NOT NULL DEFAULT '',
	output_preview      TEXT    NOT NULL DEFAULT '',
	agent_input_tokens  INTEGER,
	agent_output_tokens INTEGER,
	agent_cost          REAL,
	span_count          INTEGER NOT NULL DEFAULT 0,
	error_count         INTEGER NOT NULL DEFAULT 0,
	chat_count          INTEGER NOT NULL DEFAULT 0,
	tool_count          INTEGER NOT NULL DEFAULT 0,
	input_tokens        INTEGER NOT NULL DEFAULT 0,
	output_tokens       INTEGER NOT NULL DEFAULT 0,
	cached_tokens       INTEGER NOT NULL DEFAULT 0,
	cost                REAL    NOT NULL DEFAULT 0,
	cost_unknown        INTEGER NOT NULL DEFAULT 0,
	updated_seq         INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX IF NOT EXISTS traces_start   ON traces (start_ns, trace_id);
CREATE INDEX IF NOT EXISTS traces_agent   ON traces (agent, start_ns);
CREATE INDEX IF NOT EXISTS traces_status  ON traces (status, start_ns);
CREATE INDEX IF NOT EXISTS traces_updated ON traces (updated_seq);
CREATE TABLE IF NOT EXISTS counters (
	name  TEXT PRIMARY KEY,
	value INTEGER NOT NULL
);
INSERT OR IGNORE INTO counters (name, value) VALUES ('seq', 0), ('spans', 0);
`,
	// 2: parts, the spans loom's own tracer recorded under one local root,
	// one row each (rows of spans stay as they are); a count of traces kept
	// by triggers, so that retention need not count them on every write;
	// texts, long attribute values that repeat in every run (an agent's
	// description), which parts refer to by id.
	`
CREATE TABLE IF NOT EXISTS parts (
	trace_id   TEXT    NOT NULL,
	part_id    TEXT    NOT NULL,
	start_ns   INTEGER NOT NULL,
	span_count INTEGER NOT NULL,
	spans      BLOB    NOT NULL,
	UNIQUE (trace_id, part_id)
);
CREATE TABLE IF NOT EXISTS texts (
	id    INTEGER PRIMARY KEY,
	hash  INTEGER NOT NULL,
	value TEXT    NOT NULL
);
CREATE INDEX IF NOT EXISTS texts_hash ON texts (hash);
INSERT OR IGNORE INTO counters (name, value) SELECT 'traces', count(*) FROM traces;
CREATE TRIGGER IF NOT EXISTS traces_insert AFTER INSERT ON traces
	BEGIN UPDATE counters SET value = value + 1 WHERE name = 'traces'; END;
CREATE TRIGGER IF NOT EXISTS traces_delete AFTER DELETE ON traces
	BEGIN UPDATE counters SET value = value - 1 WHERE name = 'traces'; END;
`,
	// 3: the run a trace records (loom.run.id of its outermost agent), and
	// whether it resumed that run, so the parts of a run that paused or
	// crashed and went on in another process are shown as one run; the
	// sandbox runs that computed a value and those that failed, so a run
	// that answered with no computed value is shown as such; and the
	// failed spans of each trace, so a failure passed up through nested
	// spans written apart counts once.
	`
ALTER TABLE traces ADD COLUMN run_id TEXT NOT NULL DEFAULT '';
ALTER TABLE traces ADD COLUMN resumed INTEGER NOT NULL DEFAULT 0;
ALTER TABLE traces ADD COLUMN code_ok INTEGER NOT NULL DEFAULT 0;
ALTER TABLE traces ADD COLUMN code_failed INTEGER NOT NULL DEFAULT 0;
CREATE INDEX IF NOT EXISTS traces_run ON traces (run_id, start_ns) WHERE run_id != '';
CREATE TABLE IF NOT EXISTS failed_spans (
	trace_id        TEXT    NOT NULL,
	span_id         TEXT    NOT NULL,
	parent_id       TEXT    NOT NULL DEFAULT '',
	has_error_child INTEGER NOT NULL DEFAULT 0,
	UNIQUE (trace_id, span_id)
);
CREATE INDEX IF NOT EXISTS failed_spans_parent ON failed_spans (trace_id, parent_id);
`,
	// 4: the scores of an evaluation's trace (package evals), as JSON, so
	// the list shows it as an evaluation rather than as one agent run.
	`
ALTER TABLE traces ADD COLUMN eval TEXT NOT NULL DEFAULT '';
`,
}

// SchemaVersion is the schema version this package writes (PRAGMA
// user_version).
const SchemaVersion = 4

// migrate brings the database to SchemaVersion in one IMMEDIATE transaction,
// so two processes opening a new file at once do not both create it.
func migrate(ctx context.Context, db *sql.DB, busy time.Duration) error {
	tx, err := userfile.BeginWrite(ctx, db, busy) // the write pool begins IMMEDIATE
	if err != nil {
		return fmt.Errorf("store: begin schema migration: %w", err)
	}
	defer tx.Rollback() //nolint:errcheck // after Commit this is a no-op
	var version int
	if err := tx.QueryRowContext(ctx, "PRAGMA user_version").Scan(&version); err != nil {
		return fmt.Errorf("store: read schema version: %w", err)
	}
	if version > len(migrations) {
		return fmt.Errorf("%w (schema version %d, this build knows up to %d): upgrade loom or use another file (--db or %s)",
			ErrSchemaTooNew, version, len(migrations), PathEnv)
	}
	if version == len(migrations) {
		return nil
	}
	for i := version; i < len(migrations); i++ {
		if _, err := tx.ExecContext(ctx, migrations[i]); err != nil {
			return fmt.Errorf("store: migrate schema to version %d: %w", i+1, err)
		}
	}
	if _, err := tx.ExecContext(ctx, fmt.Sprintf("PRAGMA user_version = %d", len(migrations))); err != nil {
		return fmt.Errorf("store: set schema version: %w", err)
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("store: commit schema migration: %w", err)
	}
	return nil
}
