package graph

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/loomwork/loom/agent"
	"github.com/loomwork/loom/engine"
)

// Snapshot is a graph's state after one of its steps, in a run an engine
// recorded.
type Snapshot[S any] struct {
	// Seq is the engine's checkpoint at which the step ended: fork the run
	// there (engine.Engine.Fork) to go back to this step.
	Seq int64
	// RunID is the step's run id.
	RunID string
	// Step is the number of super-steps completed.
	Step int
	Time time.Time
	// State is the state after the step.
	State S
	// Next are the tasks of the coming step (a node's name, with "#i" for a
	// Send); none after the last step.
	Next []string
}

// History returns the state after each step of the graph in run runID of
// e, oldest first: a view over [engine.Engine.History] for runs of this
// graph, whether it is the run's agent or nested in it (steps of several
// runs of the graph in one run are all listed, in the order they ended).
// A step that waits or failed is not listed until it ends.
func (c *Compiled[S]) History(ctx context.Context, e *engine.Engine, runID string) ([]Snapshot[S], error) {
	steps, err := e.History(ctx, runID)
	if err != nil {
		return nil, err
	}
	agents := map[string]string{} // run id -> agent name
	var out []Snapshot[S]
	for _, st := range steps {
		for _, ev := range st.Events {
			switch {
			case ev.Kind == agent.EventRunStart:
				agents[ev.RunID] = ev.Agent
			case ev.Kind == agent.EventRunEnd && ev.Err == nil && ev.Agent == "step" && agents[ev.ParentID] == c.name:
				p, err := readProgress(c.name, ev.Output)
				if err != nil {
					return nil, err
				}
				s, err := decode[S](p.State)
				if err != nil {
					return nil, err
				}
				out = append(out, Snapshot[S]{Seq: st.Seq, RunID: ev.RunID, Step: p.Step, Time: ev.Time, State: s, Next: taskIDs(p.Next)})
			}
		}
	}
	return out, nil
}

// EditState is the fork option (for engine.Engine.Fork at a [Snapshot]'s
// Seq) that replaces the state after that step by what edit returns: the
// fork continues from the edited state. The next step's tasks stay those
// the step chose.
func (c *Compiled[S]) EditState(edit func(s S) (S, error)) engine.ForkOption {
	return engine.EditOutput(func(end agent.Event) (json.RawMessage, error) {
		if end.Agent != "step" {
			return nil, fmt.Errorf("%w: graph %s: the forked step's last run is %s, not a step of the graph; fork at a Snapshot's Seq", agent.ErrInvalidConfig, c.name, end.Agent)
		}
		p, err := readProgress(c.name, end.Output)
		if err != nil {
			return nil, err
		}
		s, err := decode[S](p.State)
		if err != nil {
			return nil, err
		}
		if s, err = edit(s); err != nil {
			return nil, err
		}
		if p.State, err = encode(s); err != nil {
			return nil, err
		}
		return json.Marshal(p)
	})
}
