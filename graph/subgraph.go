package graph

import (
	"encoding/json"
	"fmt"
)

// SubGraph adds to g a node that runs the compiled graph sub as a nested
// run of the node's task: in maps the parent's state to the sub-graph's
// input state, out maps the sub-graph's final state back. When the
// sub-graph asks, the parent waits with the sub-graph's questions; the
// engine's resume of the run continues the sub-graph in the middle, and
// none of its finished steps runs again.
func SubGraph[S, T any](g *Graph[S], name string, sub *Compiled[T], in func(s S) (T, error), out func(s S, result T) (S, error)) *Graph[S] {
	if sub == nil || in == nil || out == nil {
		g.problem("sub-graph node %q needs a compiled graph, an input mapping and an output mapping", name)
		return g
	}
	return g.add(&node[S]{name: name, kind: kindGraph, sub: sub,
		in: func(s S) (json.RawMessage, error) {
			t, err := in(s)
			if err != nil {
				return nil, err
			}
			return json.Marshal(t)
		},
		out: func(s S, raw json.RawMessage) (S, error) {
			var t T
			if err := json.Unmarshal(raw, &t); err != nil {
				return s, fmt.Errorf("decode the sub-graph's state into %T: %w", t, err)
			}
			return out(s, t)
		}})
}
