package checkpoint

import (
	"context"
	"encoding/json"
	"time"
)

// Checkpoint is one saved point of a run. A run's checkpoints form a line:
// 1, 2, 3, ...
type Checkpoint struct {
	// RunID is the run (thread) the checkpoint belongs to: non-empty valid
	// UTF-8 without NUL bytes, at most [MaxIDBytes] bytes.
	RunID string
	// Seq is the checkpoint's 1-based position in its run. Put requires
	// Seq == head.Seq+1, and 1 for a new run.
	Seq int64
	// Kind is the caller's label: "start", "step", "interrupt", "end", ...
	// At most [MaxKindBytes] bytes; empty is allowed.
	Kind string
	// Time is supplied by the caller (from the run's clock seam). It is
	// stored with nanosecond precision and read back in UTC. It must not be
	// zero and must lie between the years 1678 and 2262 (Unix nanoseconds).
	Time time.Time
	// State is the run's opaque state: valid JSON, or nil. An empty slice
	// is stored as nil.
	State json.RawMessage
	// Events are the opaque events since the previous checkpoint: valid
	// JSON, or nil. An empty slice is stored as nil.
	Events json.RawMessage
	// Meta holds small labels (agent name, session id, status), at most
	// [MaxMetaBytes] in all. Keys are non-empty. An empty map reads back as
	// nil.
	Meta map[string]string
}

// Store saves checkpoints. Implementations are safe for concurrent use by
// many goroutines; the SQLite and PostgreSQL stores also by many processes
// sharing one database.
type Store interface {
	// Put appends cp to its run. It is compare-and-swap on the head: when
	// cp.Seq is not the run's head Seq+1 (someone else advanced it), it
	// returns an error wrapping [ErrConflict] (a [*ConflictError]) and
	// writes nothing.
	Put(ctx context.Context, cp Checkpoint) error
	// Head returns the run's newest checkpoint, or an error wrapping
	// [ErrNotFound] when the run has none.
	Head(ctx context.Context, runID string) (Checkpoint, error)
	// Get returns the run's checkpoint seq, or an error wrapping
	// [ErrNotFound].
	Get(ctx context.Context, runID string, seq int64) (Checkpoint, error)
	// List returns the run's checkpoints, oldest first, or an error
	// wrapping [ErrNotFound] when it has none.
	List(ctx context.Context, runID string) ([]Checkpoint, error)
	// Runs lists the runs that match f, the most recently updated first
	// (ties by run id).
	Runs(ctx context.Context, f RunFilter) ([]RunInfo, error)
	// Prune deletes every whole run whose head Time is before olderThan and
	// returns how many runs it deleted. A zero olderThan deletes nothing.
	Prune(ctx context.Context, olderThan time.Time) (int, error)
	// Delete deletes the run and all its checkpoints. Deleting an unknown
	// run is not an error.
	Delete(ctx context.Context, runID string) error
	// Close releases the store. Every later call fails with [ErrClosed];
	// closing twice is not an error.
	Close() error
}

// RunInfo summarises one run: its head and when it started and last moved.
type RunInfo struct {
	RunID   string
	Head    int64             // the head checkpoint's Seq
	Kind    string            // the head checkpoint's Kind
	Created time.Time         // Time of checkpoint 1
	Updated time.Time         // Time of the head checkpoint
	Meta    map[string]string // the head checkpoint's Meta
}

// RunFilter selects runs for [Store.Runs]. The zero RunFilter selects every
// run.
type RunFilter struct {
	// Limit is the most runs returned: 0 means no limit, negative is an
	// error wrapping [ErrInvalid].
	Limit int
	// UpdatedBefore keeps only runs whose head Time is before it; zero
	// means no bound.
	UpdatedBefore time.Time
	// Meta keeps only runs whose head Meta holds every one of these pairs.
	Meta map[string]string
}

// Match reports whether a run whose head has the given update time and
// meta passes f's UpdatedBefore and Meta conditions (not its Limit).
func (f RunFilter) Match(updated time.Time, meta map[string]string) bool {
	if !f.UpdatedBefore.IsZero() && !updated.Before(f.UpdatedBefore) {
		return false
	}
	for k, v := range f.Meta {
		if got, ok := meta[k]; !ok || got != v {
			return false
		}
	}
	return true
}
