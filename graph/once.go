package graph

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/loomwork/loom/agent"
	"github.com/loomwork/loom/agent/agentrt"
)

// Once runs fn as a nested run of the current node's task, named "once"
// with input {"key": key}, and returns its result. The run is journaled
// like any other: when the graph runs under an engine with a checkpoint
// store and the node runs again (its process died, or the run waited and
// was resumed), the ended run is replayed from the engine's record and Once
// returns the saved result without calling fn. Use it for model calls,
// tool calls, sandbox runs, payments, e-mails: anything a node does that
// must not repeat. An error of fn is recorded too, and returned again.
//
// Nodes are otherwise at least once: a node whose process dies mid-way
// runs again from its start. An effect is repeated only when the process
// dies after fn returned and before its run's end was saved. A node's Once
// calls must come in the same order each time it runs (their runs are
// numbered in order). Once called outside a graph node returns an error
// wrapping [ErrNotInNode].
func Once[T any](ctx context.Context, key string, fn func(ctx context.Context) (T, error)) (T, error) {
	var zero T
	nr, _ := ctx.Value(nodeKey{}).(*agent.Run)
	r := agent.CurrentRun(ctx)
	if nr == nil || r == nil {
		return zero, fmt.Errorf("%w: graph.Once(%q) must be called with the ctx a graph node received", ErrNotInNode, key)
	}
	in, err := json.Marshal(map[string]string{"key": key})
	if err != nil {
		return zero, err
	}
	once := bodyAgent{name: "once", body: func(ctx context.Context, _ *agent.Run) (json.RawMessage, error) {
		v, err := fn(ctx)
		if err != nil {
			return nil, err
		}
		b, err := json.Marshal(v)
		if err != nil {
			return nil, fmt.Errorf("graph.Once(%q): encode the result %T: %w", key, v, err)
		}
		return b, nil
	}}
	end, err := agentrt.Child(ctx, r, once, in)
	if err != nil {
		return zero, err
	}
	var v T
	if err := json.Unmarshal(end.Output, &v); err != nil {
		return zero, fmt.Errorf("graph.Once(%q): decode the saved result into %T: %w", key, v, err)
	}
	return v, nil
}
