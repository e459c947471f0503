package graph

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/loomwork/loom/agent"
	"github.com/loomwork/loom/agent/agentrt"
)

type nodeKey struct{}

// runTask runs task t on the state in, as the nested run nr of its step,
// and returns its writes. A human-input node asks through [agent.Ask]: the
// first time the task ends with an [*agent.InterruptedError]; when the run
// is resumed with the answer, the same question (same id) gets it, and the
// answer becomes the node's output.
func (c *Compiled[S]) runTask(ctx context.Context, nr *agent.Run, t task, in fields) ([]Write, error) {
	n := c.nodes[t.Node]
	if n == nil {
		return nil, fmt.Errorf("graph %s: the run names node %q, which this graph does not have; resume it with the graph it started with", c.name, t.Node)
	}
	s, err := decode[S](in)
	if err != nil {
		return nil, err
	}
	ctx = context.WithValue(ctx, nodeKey{}, nr)
	var out S
	switch n.kind {
	case kindFunc, kindAgent:
		out, err = n.fn(ctx, nr, s)
	case kindAsk:
		q, qerr := n.ask(s)
		if qerr != nil {
			return nil, fmt.Errorf("question: %w", qerr)
		}
		answer, aerr := agent.Ask(ctx, q.Kind, q.Payload, q.Schema)
		if aerr != nil {
			return nil, aerr
		}
		if out, err = n.apply(s, answer); err != nil {
			err = fmt.Errorf("apply the answer: %w", err)
		}
	case kindGraph:
		var raw json.RawMessage
		if raw, err = n.in(s); err != nil {
			return nil, fmt.Errorf("input mapping: %w", err)
		}
		var end agent.Event
		if end, err = agentrt.Child(ctx, nr, n.sub, raw); err == nil {
			out, err = n.out(s, end.Output)
		}
	}
	if err != nil {
		return nil, err
	}
	after, err := encode(out)
	if err != nil {
		return nil, err
	}
	return diff(in, after, c.fields, c.reducers)
}
