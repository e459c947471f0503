package graph

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"

	"github.com/loomwork/loom/agent"
	"github.com/loomwork/loom/checkpoint"
)

type onceKey struct{}

// onceScope is where a node's Once results are kept: checkpoints of the
// run "<thread>/once", one per effect, keyed by step, task and key.
type onceScope struct {
	store  checkpoint.Store
	mu     *sync.Mutex
	run    string
	prefix string
}

// Once runs fn at most once for key within the current node's task of the
// current step, across resumes and crashes: the first time it runs fn and
// saves its result in the graph's checkpoint store before returning it;
// when the node runs again (its process died, or the step failed on
// another node), Once returns the saved result without calling fn. Use it
// for model calls, tool calls, sandbox runs, payments, e-mails: anything a
// node does that must not repeat. A failed fn is not saved and runs again
// next time.
//
// Nodes are otherwise at least once: a node whose process dies mid-way
// runs again from its start. An effect is repeated only when the process
// dies after fn returned and before its result was saved. Keys must be
// unique within a node. Once called outside a graph node returns an error
// wrapping [ErrNotInNode].
func Once[T any](ctx context.Context, key string, fn func(ctx context.Context) (T, error)) (T, error) {
	var zero T
	sc, _ := ctx.Value(onceKey{}).(*onceScope)
	if sc == nil {
		return zero, fmt.Errorf("%w: graph.Once(%q) must be called with the ctx a graph node received", ErrNotInNode, key)
	}
	full := sc.prefix + key
	raw, ok, err := sc.lookup(ctx, full)
	if err != nil {
		return zero, err
	}
	if ok {
		var v T
		if err := json.Unmarshal(raw, &v); err != nil {
			return zero, fmt.Errorf("graph.Once(%q): decode the saved result into %T: %w", key, v, err)
		}
		return v, nil
	}
	v, err := fn(ctx)
	if err != nil {
		return zero, err
	}
	b, err := json.Marshal(v)
	if err != nil {
		return zero, fmt.Errorf("graph.Once(%q): encode the result %T: %w", key, v, err)
	}
	if err := sc.record(ctx, full, b); err != nil {
		return zero, err
	}
	return v, nil
}

func (sc *onceScope) lookup(ctx context.Context, key string) (json.RawMessage, bool, error) {
	cps, err := sc.store.List(ctx, sc.run)
	if errors.Is(err, checkpoint.ErrNotFound) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, fmt.Errorf("graph.Once(%q): %w", key, err)
	}
	for _, cp := range cps {
		if cp.Meta["key"] == key {
			return cp.State, true, nil
		}
	}
	return nil, false, nil
}

// record appends the result; other tasks (or processes) may append at the
// same time, so a lost compare-and-swap is retried at the new head.
func (sc *onceScope) record(ctx context.Context, key string, v json.RawMessage) error {
	sc.mu.Lock()
	defer sc.mu.Unlock()
	for {
		var seq int64
		head, err := sc.store.Head(ctx, sc.run)
		switch {
		case err == nil:
			seq = head.Seq
		case !errors.Is(err, checkpoint.ErrNotFound):
			return fmt.Errorf("graph.Once(%q): %w", key, err)
		}
		err = sc.store.Put(ctx, checkpoint.Checkpoint{RunID: sc.run, Seq: seq + 1, Kind: "once", Time: agent.Now(ctx), State: v, Meta: map[string]string{"key": key}})
		if !errors.Is(err, checkpoint.ErrConflict) {
			if err != nil {
				return fmt.Errorf("graph.Once(%q): save the result: %w", key, err)
			}
			return nil
		}
		if err := ctx.Err(); err != nil {
			return err
		}
	}
}
