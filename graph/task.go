package graph

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/loomwork/loom/agent"
)

// runTask runs one task of step stepNo on the state in and returns its
// writes, or the requests it waits for with an error wrapping
// agent.ErrInterrupted.
func (c *Compiled[S]) runTask(ctx context.Context, nr *agent.Run, thread string, stepNo int, t task, in fields, rec *record) ([]Write, []Request, error) {
	n := c.nodes[t.Node]
	if n == nil {
		return nil, nil, fmt.Errorf("graph %s: the checkpoint names node %q, which this graph does not have", c.name, t.Node)
	}
	s, err := decode[S](in)
	if err != nil {
		return nil, nil, err
	}
	ctx = WithThread(ctx, "")
	ctx = context.WithValue(ctx, onceKey{}, &onceScope{store: c.store, mu: &c.onceMu, run: thread + "/once", prefix: strconv.Itoa(stepNo) + "/" + t.ID + "/"})
	var out S
	switch n.kind {
	case kindFunc, kindAgent:
		out, err = n.fn(ctx, nr, s)
	case kindAsk:
		q, err := n.ask(s)
		if err != nil {
			return nil, nil, fmt.Errorf("question: %w", err)
		}
		req := Request{ID: thread + ":" + strconv.Itoa(stepNo) + ":" + t.ID, Node: t.ID, Kind: q.Kind, Schema: q.Schema}
		if q.Payload != nil {
			if req.Payload, err = json.Marshal(q.Payload); err != nil {
				return nil, nil, fmt.Errorf("encode the question's payload: %w", err)
			}
		}
		aq := req.question(nr)
		if !nr.Emit(agent.Event{Kind: agent.EventInterrupt, Question: &aq}) {
			return nil, nil, agent.ErrStopped
		}
		return nil, []Request{req}, &agent.InterruptedError{Questions: []agent.Question{aq}}
	case kindGraph:
		var reqs []Request
		out, reqs, err = c.runSub(ctx, nr, n, thread, stepNo, t, s, rec)
		if reqs != nil {
			return nil, reqs, err
		}
	}
	if err != nil {
		return nil, nil, err
	}
	after, err := encode(out)
	if err != nil {
		return nil, nil, err
	}
	ws, err := diff(in, after, c.fields, c.reducers)
	return ws, nil, err
}
