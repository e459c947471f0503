package spec

import (
	"context"
	"encoding/json"
	"fmt"
	"iter"

	"github.com/loomwork/loom/agent"
	"github.com/loomwork/loom/agent/agentrt"
	"github.com/loomwork/loom/graph"
	"github.com/loomwork/loom/internal/flow"
)

// gstate is a graph entry's state: the JSON values by key, merged so that
// each node writes only the keys it changed.
type gstate struct {
	State map[string]json.RawMessage `json:"state"`
}

// graphAgent is a graph entry: its input object is the initial state, its
// output the final state.
type graphAgent struct {
	name, desc string
	c          *graph.Compiled[gstate]
}

func (g *graphAgent) Info() agent.Info {
	return agent.Info{Name: g.name, Description: g.desc, Kind: "graph", InputSchema: flow.AnyObject, OutputSchema: flow.AnyObject}
}

// Run runs the graph on input, a JSON object: the initial state.
func (g *graphAgent) Run(ctx context.Context, input json.RawMessage) iter.Seq2[agent.Event, error] {
	return agentrt.Execute(ctx, g, input, func(ctx context.Context, r *agent.Run) (json.RawMessage, error) {
		var state map[string]json.RawMessage
		if err := json.Unmarshal(input, &state); err != nil || state == nil {
			return nil, fmt.Errorf("%w: graph %s: the input must be a JSON object, the graph's first state; got %.100s", agent.ErrInvalidInput, g.name, input)
		}
		in, err := json.Marshal(gstate{State: state})
		if err != nil {
			return nil, err
		}
		// The graph's steps are nested runs of this one: an engine's
		// resume of the run replays those that ended (see graph.Compiled.Run).
		end, err := agentrt.Child(ctx, r, g.c, in)
		if err != nil {
			return nil, err
		}
		return stateOf(end.Output)
	})
}

func stateOf(out json.RawMessage) (json.RawMessage, error) {
	var s gstate
	if err := json.Unmarshal(out, &s); err != nil {
		return nil, fmt.Errorf("graph: decode the final state: %w", err)
	}
	if s.State == nil {
		return json.RawMessage(`{}`), nil
	}
	return json.Marshal(s.State)
}
