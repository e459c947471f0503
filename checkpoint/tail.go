package checkpoint

import (
	"context"
	"fmt"
)

// TailReader is a [Store] that reads the end of a run's line in one call.
// A resume that starts from a snapshot saved at checkpoint from reads
// checkpoints from..head this way instead of the whole line. The memory,
// SQLite and PostgreSQL stores implement it; [ListFrom] falls back to
// [Store.List] for stores that do not.
type TailReader interface {
	// ListFrom returns the run's checkpoints whose Seq is from or more,
	// oldest first, or an error wrapping [ErrNotFound] when the run has
	// none (from beyond the head included). from must be 1 or more.
	ListFrom(ctx context.Context, runID string, from int64) ([]Checkpoint, error)
}

// ListFrom returns run runID's checkpoints from Seq from on, oldest first:
// through s's ListFrom when s is a [TailReader], else by s.List.
func ListFrom(ctx context.Context, s Store, runID string, from int64) ([]Checkpoint, error) {
	if t, ok := s.(TailReader); ok {
		return t.ListFrom(ctx, runID, from)
	}
	if err := ValidateSeq(runID, from); err != nil {
		return nil, fmt.Errorf("checkpoint: ListFrom: %w", err)
	}
	cps, err := s.List(ctx, runID)
	if err != nil {
		return nil, err
	}
	for i, cp := range cps {
		if cp.Seq >= from {
			return cps[i:], nil
		}
	}
	return nil, &NotFoundError{RunID: runID, Seq: from}
}
