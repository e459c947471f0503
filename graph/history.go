package graph

import (
	"context"
	"fmt"
	"time"

	"github.com/loomwork/loom/checkpoint"
)

// Snapshot is a thread's state at one checkpoint.
type Snapshot[S any] struct {
	Thread string
	Seq    int64     // the checkpoint's position in the thread, from 1
	Kind   string    // "input", "step", "waiting", "failed", "resume", "fork", "end"
	Time   time.Time // when it was saved
	Status string    // StatusRunning, StatusWaiting, StatusFailed or StatusDone
	Step   int       // super-steps completed on the thread
	State  S
	// Next are the tasks of the coming step (a node's name, with "#i" for
	// a Send).
	Next    []string
	Waiting []Request
	Error   string
}

func (c *Compiled[S]) snapshot(cp checkpoint.Checkpoint) (Snapshot[S], error) {
	rec, err := readRecord(cp)
	if err != nil {
		return Snapshot[S]{}, err
	}
	s, err := decode[S](rec.State)
	if err != nil {
		return Snapshot[S]{}, err
	}
	return Snapshot[S]{Thread: cp.RunID, Seq: cp.Seq, Kind: cp.Kind, Time: cp.Time, Status: rec.Status, Step: rec.Step,
		State: s, Next: taskIDs(rec.Next), Waiting: rec.Waiting, Error: rec.Error}, nil
}

// History returns the thread's checkpoints, oldest first.
func (c *Compiled[S]) History(ctx context.Context, thread string) ([]Snapshot[S], error) {
	cps, err := c.store.List(ctx, thread)
	if err != nil {
		return nil, fmt.Errorf("graph %s: history of thread %q: %w", c.name, thread, err)
	}
	out := make([]Snapshot[S], len(cps))
	for i, cp := range cps {
		if out[i], err = c.snapshot(cp); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// StateAt returns the thread's state at checkpoint seq, or at its head when
// seq is 0.
func (c *Compiled[S]) StateAt(ctx context.Context, thread string, seq int64) (Snapshot[S], error) {
	var cp checkpoint.Checkpoint
	var err error
	if seq == 0 {
		cp, err = c.store.Head(ctx, thread)
	} else {
		cp, err = c.store.Get(ctx, thread, seq)
	}
	if err != nil {
		return Snapshot[S]{}, fmt.Errorf("graph %s: state of thread %q: %w", c.name, thread, err)
	}
	return c.snapshot(cp)
}

// Fork starts thread to as a branch of thread from at checkpoint seq (time
// travel): to gets a copy of from's checkpoints 1..seq, then, when edit is
// not nil, a "fork" checkpoint whose state is edit's result. The original
// thread is left as it was. Continue the branch with [Compiled.Resume]
// (with answers when it waits). to must be a new thread. [Once] results
// are not copied: the branch is a new history, whose nodes do their
// effects again.
func (c *Compiled[S]) Fork(ctx context.Context, from string, seq int64, to string, edit func(s S) (S, error)) (Snapshot[S], error) {
	var zero Snapshot[S]
	if from == to {
		return zero, fmt.Errorf("graph %s: fork of thread %q onto itself; name a new thread", c.name, from)
	}
	cps, err := c.store.List(ctx, from)
	if err != nil {
		return zero, fmt.Errorf("graph %s: fork thread %q: %w", c.name, from, err)
	}
	if seq < 1 || seq > int64(len(cps)) {
		return zero, fmt.Errorf("graph %s: fork thread %q at checkpoint %d: it has checkpoints 1 to %d", c.name, from, seq, len(cps))
	}
	for _, cp := range cps[:seq] {
		cp.RunID = to
		if err := c.store.Put(ctx, cp); err != nil {
			return zero, fmt.Errorf("graph %s: fork thread %q into %q (a new thread is needed): %w", c.name, from, to, err)
		}
	}
	last := cps[seq-1]
	if edit != nil {
		rec, err := readRecord(last)
		if err != nil {
			return zero, err
		}
		s, err := decode[S](rec.State)
		if err != nil {
			return zero, err
		}
		if s, err = edit(s); err != nil {
			return zero, fmt.Errorf("graph %s: fork edit: %w", c.name, err)
		}
		if rec.State, err = encode(s); err != nil {
			return zero, err
		}
		if err := c.put(ctx, to, seq+1, "fork", rec); err != nil {
			return zero, err
		}
		return c.StateAt(ctx, to, seq+1)
	}
	return c.StateAt(ctx, to, seq)
}
