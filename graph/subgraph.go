package graph

import (
	"context"
	"encoding/json"
	"fmt"
	"iter"
	"strconv"

	"github.com/loomwork/loom/agent"
)

// subgraph is what a parent graph needs of a compiled sub-graph.
type subgraph interface {
	agent.Agent
	resumer(thread string, answers map[string]json.RawMessage) agent.Agent
	status(ctx context.Context, thread string) (status string, state json.RawMessage, waiting []Request, err error)
}

// SubGraph adds to g a node that runs the compiled graph sub on its own
// thread (derived from the parent's thread, the step and the node): in
// maps the parent's state to the sub-graph's input state, out maps the
// sub-graph's final state back. When the sub-graph asks, the parent waits
// with the sub-graph's requests; resuming the parent with their answers
// resumes the sub-graph from its own checkpoint, in the middle, and runs
// none of its finished nodes again.
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

type resumeAgent[S any] struct {
	*Compiled[S]
	thread  string
	answers map[string]json.RawMessage
}

func (a resumeAgent[S]) Run(ctx context.Context, _ json.RawMessage) iter.Seq2[agent.Event, error] {
	return a.Resume(ctx, a.thread, a.answers)
}

func (c *Compiled[S]) resumer(thread string, answers map[string]json.RawMessage) agent.Agent {
	return resumeAgent[S]{c, thread, answers}
}

func (c *Compiled[S]) status(ctx context.Context, thread string) (string, json.RawMessage, []Request, error) {
	_, rec, err := c.head(ctx, thread)
	if err != nil || rec == nil {
		return "", nil, nil, err
	}
	state, err := json.Marshal(rec.State)
	return rec.Status, state, rec.Waiting, err
}

// runSub runs (or resumes, or picks up after a crash) the sub-graph of
// task t.
func (c *Compiled[S]) runSub(ctx context.Context, nr *agent.Run, n *node[S], thread string, stepNo int, t task, s S, rec *record) (S, []Request, error) {
	subThread := thread + "/" + t.ID + "@" + strconv.Itoa(stepNo)
	answers := map[string]json.RawMessage{}
	for _, q := range rec.Waiting {
		if a, ok := rec.Answers[q.ID]; ok && q.Node == t.ID {
			answers[q.ID] = a
		}
	}
	var end agent.Event
	var err error
	if len(answers) > 0 {
		end, err = nr.Child(ctx, n.sub.resumer(subThread, answers), json.RawMessage(`{}`))
	} else {
		status, state, waiting, serr := n.sub.status(ctx, subThread)
		switch {
		case serr != nil:
			return s, nil, serr
		case status == StatusDone:
			// The sub-graph ended but the parent's step was not saved.
			end.Output = state
		case status == StatusWaiting:
			return s, subRequests(waiting, t.ID, subThread), &agent.InterruptedError{}
		case status != "":
			end, err = nr.Child(ctx, n.sub.resumer(subThread, nil), json.RawMessage(`{}`))
		default:
			raw, ierr := n.in(s)
			if ierr != nil {
				return s, nil, fmt.Errorf("input mapping: %w", ierr)
			}
			end, err = nr.Child(WithThread(ctx, subThread), n.sub, raw)
		}
	}
	if ie := agent.Interrupts(err); ie != nil {
		_, _, waiting, serr := n.sub.status(ctx, subThread)
		if serr != nil {
			return s, nil, serr
		}
		return s, subRequests(waiting, t.ID, subThread), err
	}
	if err != nil {
		return s, nil, err
	}
	out, err := n.out(s, end.Output)
	return out, nil, err
}

// subRequests returns a sub-graph's requests as the parent task's.
func subRequests(waiting []Request, taskID, subThread string) []Request {
	out := make([]Request, len(waiting))
	for i, q := range waiting {
		q.Node, q.Thread = taskID, subThread
		out[i] = q
	}
	return out
}
