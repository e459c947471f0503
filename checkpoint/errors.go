package checkpoint

import (
	"errors"
	"fmt"
)

// Sentinels every store's errors wrap, for [errors.Is].
var (
	// ErrNotFound: the run has no checkpoint (or not the one asked for).
	ErrNotFound = errors.New("not found")
	// ErrConflict: a compare-and-swap lost; another writer advanced the run
	// or session first. Nothing was written.
	ErrConflict = errors.New("conflict")
	// ErrCorrupt: a stored row or table is not what this package writes: an
	// unknown format version, invalid JSON, a table that is not loom's.
	ErrCorrupt = errors.New("corrupt")
	// ErrInvalid: a bad argument, such as an empty run id, a Seq below 1 or
	// invalid JSON. Nothing was written.
	ErrInvalid = errors.New("invalid argument")
	// ErrClosed: the store was closed.
	ErrClosed = errors.New("store closed")
)

// NotFoundError is returned when a run has no checkpoints, or not the one
// asked for. It wraps [ErrNotFound].
type NotFoundError struct {
	RunID string
	Seq   int64 // the checkpoint asked for; 0 for the run as a whole
}

// Error says which run (and checkpoint) is missing and where to look.
func (e *NotFoundError) Error() string {
	if e.Seq == 0 {
		return fmt.Sprintf("run %q: %v: it has no checkpoints (never saved, deleted or pruned); list known runs with Runs", e.RunID, ErrNotFound)
	}
	return fmt.Sprintf("run %q checkpoint %d: %v: list the run's checkpoints with List", e.RunID, e.Seq, ErrNotFound)
}

// Unwrap returns [ErrNotFound].
func (e *NotFoundError) Unwrap() error { return ErrNotFound }

// ConflictError is returned when a compare-and-swap loses: Put's Seq was not
// the run's head Seq+1, or Append's after was not the session's turn count.
// Nothing was written. It wraps [ErrConflict].
type ConflictError struct {
	// RunID is the run for a checkpoint conflict; SessionID the session
	// for a session conflict. Exactly one is set.
	RunID     string
	SessionID string
	// Want is the head Seq (or turn count) the caller expected: the Seq
	// put minus one, or Append's after.
	Want int64
	// Have is the head Seq (or turn count) the store holds.
	Have int64
}

// Error says what the caller expected, what the store holds, and what to
// do.
func (e *ConflictError) Error() string {
	if e.SessionID != "" {
		return fmt.Sprintf("session %q: %v: append after %d turns, but the session holds %d (another writer appended first): Load the session and append after its turns", e.SessionID, ErrConflict, e.Want, e.Have)
	}
	return fmt.Sprintf("run %q: %v: checkpoint %d needs the head at %d, but it is at %d (another writer advanced the run): read Head and continue from there", e.RunID, ErrConflict, e.Want+1, e.Want, e.Have)
}

// Unwrap returns [ErrConflict].
func (e *ConflictError) Unwrap() error { return ErrConflict }

// CorruptError is returned when stored data is not what this package
// writes: a row with an unknown format version or invalid JSON, or a table
// that is not loom's. It wraps [ErrCorrupt].
type CorruptError struct {
	// Table is the database table (empty for the memory store).
	Table string
	// RunID is the run of a bad checkpoint row; SessionID the session of a
	// bad turn. Both are empty when the problem is the table itself.
	RunID     string
	SessionID string
	// Seq is the bad checkpoint's Seq, or the bad turn's 1-based position;
	// 0 when the problem is not one row.
	Seq int64
	// Reason says what was wrong.
	Reason string
	// Fix says what to do; empty means the usual advice (delete the run or
	// session, or give loom a database of its own).
	Fix string
}

// Error names the table, the run (or session) and row, what was wrong,
// and what to do.
func (e *CorruptError) Error() string {
	where, fix := "table "+e.Table, e.Fix
	switch {
	case e.RunID != "":
		where += fmt.Sprintf(", run %q checkpoint %d", e.RunID, e.Seq)
		if fix == "" {
			fix = "delete the run (Delete) or restore the database from a backup"
		}
	case e.SessionID != "":
		where += fmt.Sprintf(", session %q turn %d", e.SessionID, e.Seq)
		if fix == "" {
			fix = "delete the session (Delete) or restore the database from a backup"
		}
	case fix == "":
		fix = "give loom a database (or PostgreSQL schema) of its own"
	}
	return fmt.Sprintf("%s: %v: %s: %s", where, ErrCorrupt, e.Reason, fix)
}

// Unwrap returns [ErrCorrupt].
func (e *CorruptError) Unwrap() error { return ErrCorrupt }
