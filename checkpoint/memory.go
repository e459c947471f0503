package checkpoint

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"slices"
	"sync"
	"time"
)

// Memory is a [Store] that keeps checkpoints in the process's memory; they
// are lost when the process exits. It copies data in and out, so callers
// cannot change what it holds. Create it with [NewMemory].
type Memory struct {
	mu     sync.RWMutex
	closed bool
	runs   map[string][]Checkpoint
}

// NewMemory returns an empty in-memory checkpoint store.
func NewMemory() *Memory {
	return &Memory{runs: map[string][]Checkpoint{}}
}

var (
	_ Store      = (*Memory)(nil)
	_ TailReader = (*Memory)(nil)
)

// memErr prefixes an error with the store's name.
func memErr(err error) error { return fmt.Errorf("checkpoint/memory: %w", err) }

// memReady checks the context and that the store is open before
// operation op on the run or session id (what is "run" or "session"; both
// may be empty).
func memReady(ctx context.Context, closed bool, op, what, id string) error {
	if ctx.Err() == nil && !closed {
		return nil
	}
	if id != "" {
		op = fmt.Sprintf("%s %s %q", op, what, id)
	}
	if err := ctx.Err(); err != nil {
		return memErr(fmt.Errorf("%s: %w", op, err))
	}
	if closed {
		return memErr(fmt.Errorf("%s: %w: create a new store", op, ErrClosed))
	}
	return nil
}

// Put appends cp to its run; see [Store.Put].
func (m *Memory) Put(ctx context.Context, cp Checkpoint) error {
	if err := cp.Validate(); err != nil {
		return memErr(err)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if err := memReady(ctx, m.closed, "Put", "run", cp.RunID); err != nil {
		return err
	}
	line := m.runs[cp.RunID]
	if head := int64(len(line)); cp.Seq != head+1 {
		return memErr(&ConflictError{RunID: cp.RunID, Want: cp.Seq - 1, Have: head})
	}
	m.runs[cp.RunID] = append(line, cp.clone())
	return nil
}

// Head returns the run's newest checkpoint; see [Store.Head].
func (m *Memory) Head(ctx context.Context, runID string) (Checkpoint, error) {
	line, err := m.line(ctx, "Head", runID)
	if err != nil {
		return Checkpoint{}, err
	}
	return line[len(line)-1].clone(), nil
}

// Get returns one checkpoint; see [Store.Get].
func (m *Memory) Get(ctx context.Context, runID string, seq int64) (Checkpoint, error) {
	if err := ValidateSeq(runID, seq); err != nil {
		return Checkpoint{}, memErr(fmt.Errorf("Get: %w", err))
	}
	line, err := m.line(ctx, "Get", runID)
	if err != nil {
		return Checkpoint{}, err
	}
	if seq > int64(len(line)) {
		return Checkpoint{}, memErr(&NotFoundError{RunID: runID, Seq: seq})
	}
	return line[seq-1].clone(), nil
}

// List returns the run's checkpoints, oldest first; see [Store.List].
func (m *Memory) List(ctx context.Context, runID string) ([]Checkpoint, error) {
	line, err := m.line(ctx, "List", runID)
	if err != nil {
		return nil, err
	}
	out := make([]Checkpoint, len(line))
	for i, cp := range line {
		out[i] = cp.clone()
	}
	return out, nil
}

// ListFrom returns the run's checkpoints from Seq from on; see
// [TailReader.ListFrom].
func (m *Memory) ListFrom(ctx context.Context, runID string, from int64) ([]Checkpoint, error) {
	if err := ValidateSeq(runID, from); err != nil {
		return nil, memErr(fmt.Errorf("ListFrom: %w", err))
	}
	line, err := m.line(ctx, "ListFrom", runID)
	if err != nil {
		return nil, err
	}
	if from > int64(len(line)) {
		return nil, memErr(&NotFoundError{RunID: runID, Seq: from})
	}
	out := make([]Checkpoint, 0, int64(len(line))-from+1)
	for _, cp := range line[from-1:] {
		out = append(out, cp.clone())
	}
	return out, nil
}

// line returns the run's stored checkpoints. They are not copies, but
// stored checkpoints are never changed in place, so reading them after the
// lock is released is safe.
func (m *Memory) line(ctx context.Context, op, runID string) ([]Checkpoint, error) {
	if err := ValidateID("run", runID); err != nil {
		return nil, memErr(fmt.Errorf("%s: %w", op, err))
	}
	m.mu.RLock()
	defer m.mu.RUnlock()
	if err := memReady(ctx, m.closed, op, "run", runID); err != nil {
		return nil, err
	}
	line := m.runs[runID]
	if len(line) == 0 {
		return nil, memErr(&NotFoundError{RunID: runID})
	}
	return line, nil
}

// Runs lists runs; see [Store.Runs].
func (m *Memory) Runs(ctx context.Context, f RunFilter) ([]RunInfo, error) {
	if err := f.Validate(); err != nil {
		return nil, memErr(fmt.Errorf("Runs: %w", err))
	}
	m.mu.RLock()
	defer m.mu.RUnlock()
	if err := memReady(ctx, m.closed, "Runs", "", ""); err != nil {
		return nil, err
	}
	var out []RunInfo
	for id, line := range m.runs {
		head := line[len(line)-1]
		if !f.Match(head.Time, head.Meta) {
			continue
		}
		out = append(out, RunInfo{
			RunID: id, Head: head.Seq, Kind: head.Kind,
			Created: line[0].Time, Updated: head.Time, Meta: maps.Clone(head.Meta),
		})
	}
	slices.SortFunc(out, func(a, b RunInfo) int {
		if c := b.Updated.Compare(a.Updated); c != 0 {
			return c
		}
		return cmp.Compare(a.RunID, b.RunID)
	})
	if f.Limit > 0 && len(out) > f.Limit {
		out = out[:f.Limit]
	}
	return out, nil
}

// Prune deletes whole runs whose head is older than olderThan; see
// [Store.Prune].
func (m *Memory) Prune(ctx context.Context, olderThan time.Time) (int, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if err := memReady(ctx, m.closed, "Prune", "", ""); err != nil {
		return 0, err
	}
	n := 0
	for id, line := range m.runs {
		if line[len(line)-1].Time.Before(olderThan) {
			delete(m.runs, id)
			n++
		}
	}
	return n, nil
}

// Delete deletes a run; see [Store.Delete].
func (m *Memory) Delete(ctx context.Context, runID string) error {
	if err := ValidateID("run", runID); err != nil {
		return memErr(fmt.Errorf("Delete: %w", err))
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if err := memReady(ctx, m.closed, "Delete", "run", runID); err != nil {
		return err
	}
	delete(m.runs, runID)
	return nil
}

// Close drops the store's data; later calls fail with [ErrClosed].
func (m *Memory) Close() error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.closed, m.runs = true, nil
	return nil
}
