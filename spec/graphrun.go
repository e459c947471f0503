package spec

import (
	"context"
	"encoding/json"
	"fmt"
	"iter"
	"maps"
	"slices"

	"github.com/loomwork/loom/agent"
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

var _ Resumable = (*graphAgent)(nil)

func (g *graphAgent) Name() string                  { return g.name }
func (g *graphAgent) Description() string           { return g.desc }
func (g *graphAgent) InputSchema() json.RawMessage  { return flow.AnyObject }
func (g *graphAgent) OutputSchema() json.RawMessage { return flow.AnyObject }
func (g *graphAgent) Kind() string                  { return "graph" }

// Run runs the graph on input, a JSON object: the initial state.
func (g *graphAgent) Run(ctx context.Context, input json.RawMessage) iter.Seq2[agent.Event, error] {
	return agent.Execute(ctx, g, input, func(ctx context.Context, r *agent.Run) (json.RawMessage, error) {
		var state map[string]json.RawMessage
		if err := json.Unmarshal(input, &state); err != nil || state == nil {
			return nil, fmt.Errorf("%w: graph %s: the input must be a JSON object, the graph's first state; got %.100s", agent.ErrInvalidInput, g.name, input)
		}
		in, err := json.Marshal(gstate{State: state})
		if err != nil {
			return nil, err
		}
		// An engine's resume of the run continues the graph from its own
		// checkpoint (see graph.Compiled.Run).
		end, err := r.Child(graph.WithThread(ctx, graph.RunThread(r.ID)), g.c, in)
		if err != nil {
			return nil, err
		}
		return stateOf(end.Output)
	})
}

// ResumeRun continues the graph of run runID from its last checkpoint.
func (g *graphAgent) ResumeRun(ctx context.Context, runID string, answers map[string]json.RawMessage) iter.Seq2[agent.Event, error] {
	in, _ := json.Marshal(map[string]any{"resume": runID, "answers": slices.Sorted(maps.Keys(answers))})
	return agent.Execute(ctx, g, in, func(ctx context.Context, r *agent.Run) (json.RawMessage, error) {
		end, err := r.Child(ctx, resumer{c: g.c, thread: graph.RunThread(runID), answers: answers}, in)
		if err != nil {
			return nil, err
		}
		return stateOf(end.Output)
	})
}

// Pending returns the questions the graph of run runID waits for.
func (g *graphAgent) Pending(ctx context.Context, runID string) ([]agent.Question, error) {
	reqs, err := g.c.Pending(ctx, graph.RunThread(runID))
	if err != nil {
		return nil, err
	}
	qs := make([]agent.Question, len(reqs))
	for i, r := range reqs {
		qs[i] = agent.Question{ID: r.ID, RootID: runID, Kind: r.Kind, Payload: r.Payload, Schema: r.Schema}
	}
	return qs, nil
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

// resumer is the resumed graph, as an agent that runs beneath the entry.
type resumer struct {
	c       *graph.Compiled[gstate]
	thread  string
	answers map[string]json.RawMessage
}

func (r resumer) Name() string                  { return r.c.Name() }
func (r resumer) Description() string           { return r.c.Description() }
func (r resumer) InputSchema() json.RawMessage  { return nil }
func (r resumer) OutputSchema() json.RawMessage { return nil }
func (r resumer) Run(ctx context.Context, _ json.RawMessage) iter.Seq2[agent.Event, error] {
	return r.c.Resume(ctx, r.thread, r.answers)
}
