// Package sqlrow is the plumbing the SQL checkpoint stores share: table
// and column names, the row format version, and turning stored rows back
// into checkpoints and turns, with a [checkpoint.CorruptError] for a row
// that is not what loom writes.
package sqlrow

import (
	"encoding/json"
	"fmt"

	"github.com/loomwork/loom/checkpoint"
)

// Format is the version of the row format written into every checkpoint
// and turn row; a row with another version is corrupt to this build.
const Format = 1

// SchemaName and SchemaVersion are the row the stores keep in
// [TableSchema]: its presence marks a database (or PostgreSQL schema) as
// loom's, its version says which tables and columns to expect.
const (
	SchemaName    = "loom.checkpoint"
	SchemaVersion = 1
)

// Table names. They carry a loom_ prefix so they can share a database with
// an application's own tables.
const (
	TableSchema      = "loom_schema"
	TableRuns        = "loom_runs"
	TableCheckpoints = "loom_checkpoints"
	TableSessions    = "loom_sessions"
	TableTurns       = "loom_session_turns"
)

// Columns lists, for each table, the columns the stores read and write; a
// table with one of these names that lacks any of them is not loom's.
var Columns = map[string][]string{
	TableSchema:      {"name", "version"},
	TableRuns:        {"run_id", "head", "kind", "created_ns", "updated_ns", "meta"},
	TableCheckpoints: {"run_id", "seq", "format", "kind", "time_ns", "state", "events", "meta"},
	TableSessions:    {"session_id", "turns", "created_ns", "updated_ns"},
	TableTurns:       {"session_id", "turn", "format", "body"},
}

// Tables lists the table names in the order they are created.
var Tables = []string{TableSchema, TableRuns, TableCheckpoints, TableSessions, TableTurns}

// MissingColumns returns the expected columns of table that are not in
// have.
func MissingColumns(table string, have []string) []string {
	got := map[string]bool{}
	for _, c := range have {
		got[c] = true
	}
	var missing []string
	for _, c := range Columns[table] {
		if !got[c] {
			missing = append(missing, c)
		}
	}
	return missing
}

// ForeignTable returns the error for a table with loom's name that is not
// loom's.
func ForeignTable(table, reason string) error {
	return &checkpoint.CorruptError{Table: table, Reason: "the table is not loom's: " + reason}
}

// TooNew returns the error for a schema written by a newer loom.
func TooNew(version int64) error {
	return &checkpoint.CorruptError{Table: TableSchema,
		Reason: fmt.Sprintf("schema version %d was written by a newer loom (this build knows version %d)", version, SchemaVersion),
		Fix:    "upgrade loom, or give this loom a database of its own"}
}

// EncodeMeta returns meta as a JSON object, or nil when it is empty.
func EncodeMeta(meta map[string]string) []byte {
	if len(meta) == 0 {
		return nil
	}
	b, _ := json.Marshal(meta) // a map of strings always encodes
	return b
}

// DecodeMeta reads what [EncodeMeta] wrote; a nil or empty b is no meta.
func DecodeMeta(b []byte) (map[string]string, error) {
	if len(b) == 0 {
		return nil, nil
	}
	var m map[string]string
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, err
	}
	if len(m) == 0 {
		return nil, nil
	}
	return m, nil
}

// Row is a checkpoint row as read from a table.
type Row struct {
	RunID  string
	Seq    int64
	Format int64
	Kind   string
	TimeNS int64
	State  []byte
	Events []byte
	Meta   []byte
}

// Checkpoint checks r and returns its checkpoint, or a
// [*checkpoint.CorruptError] saying what is wrong with the row.
func (r Row) Checkpoint() (checkpoint.Checkpoint, error) {
	bad := func(format string, args ...any) error {
		return &checkpoint.CorruptError{Table: TableCheckpoints, RunID: r.RunID, Seq: r.Seq, Reason: fmt.Sprintf(format, args...)}
	}
	if r.Format != Format {
		return checkpoint.Checkpoint{}, bad("row format version %d, this build reads version %d (written by another program or a newer loom)", r.Format, Format)
	}
	if len(r.State) > 0 && !json.Valid(r.State) {
		return checkpoint.Checkpoint{}, bad("state is not valid JSON")
	}
	if len(r.Events) > 0 && !json.Valid(r.Events) {
		return checkpoint.Checkpoint{}, bad("events are not valid JSON")
	}
	meta, err := DecodeMeta(r.Meta)
	if err != nil {
		return checkpoint.Checkpoint{}, bad("meta is not a JSON object of strings: %v", err)
	}
	return checkpoint.Checkpoint{
		RunID: r.RunID, Seq: r.Seq, Kind: r.Kind, Time: Time(r.TimeNS),
		State: nilIfEmpty(r.State), Events: nilIfEmpty(r.Events), Meta: meta,
	}, nil
}

// RunMeta decodes the head meta kept in the runs table, or returns a
// [*checkpoint.CorruptError].
func RunMeta(runID string, head int64, b []byte) (map[string]string, error) {
	m, err := DecodeMeta(b)
	if err != nil {
		return nil, &checkpoint.CorruptError{Table: TableRuns, RunID: runID, Seq: head, Reason: fmt.Sprintf("meta is not a JSON object of strings: %v", err)}
	}
	return m, nil
}

// Turn checks a stored turn (1-based) and returns it, or a
// [*checkpoint.CorruptError].
func Turn(sessionID string, turn, format int64, body []byte) (json.RawMessage, error) {
	bad := func(reason string) error {
		return &checkpoint.CorruptError{Table: TableTurns, SessionID: sessionID, Seq: turn, Reason: reason}
	}
	if format != Format {
		return nil, bad(fmt.Sprintf("row format version %d, this build reads version %d (written by another program or a newer loom)", format, Format))
	}
	if len(body) == 0 || !json.Valid(body) {
		return nil, bad("the turn is not valid JSON")
	}
	return body, nil
}

func nilIfEmpty(b []byte) json.RawMessage {
	if len(b) == 0 {
		return nil
	}
	return b
}
