package graph

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"maps"
	"slices"
	"strconv"

	"github.com/loomwork/loom/agent"

	"github.com/loomwork/loom/agent/agentrt"
)

// bodyAgent is an internal agent for a step or a node run, so that each
// shows in the event stream and the trace as a run of its own.
type bodyAgent struct {
	name string
	body agent.Body
}

func (a bodyAgent) Info() agent.Info { return agent.Info{Name: a.name} }
func (a bodyAgent) Run(ctx context.Context, input json.RawMessage) iter.Seq2[agent.Event, error] {
	return agentrt.Execute(ctx, a, input, a.body)
}

// Run runs the graph on input, a JSON object of state fields, from the
// zero S. Each input field is a write through the field's reducer (an
// Append field gets the elements appended); keys that are not fields of S
// are ignored, as a function agent ignores them, so that the graph nests in
// compositions that pass on more. The output is the final state.
//
// The events are those of a run whose children are the steps: each step is
// a nested run named "step" whose input lists its tasks and whose output is
// the state after it with the next tasks and the nodes that ran so far;
// each task is a nested run of the step named for its node, whose output
// is its writes. Under an engine with a checkpoint store these runs are
// journaled like any other, so a
// run that waits at a human-input node (or asks through [agent.Ask] in any
// node), or whose process died, is continued by the engine's Resume: the
// steps and tasks that ended are replayed from their record, not run
// again.
func (c *Compiled[S]) Run(ctx context.Context, input json.RawMessage) iter.Seq2[agent.Event, error] {
	return agentrt.Execute(ctx, c, input, func(ctx context.Context, r *agent.Run) (json.RawMessage, error) {
		return c.start(ctx, r, input)
	})
}

// Invoke runs the graph with every field of input as a write (see
// [Compiled.Run]) and returns the final state. A run that asks ends with
// an [*agent.InterruptedError]; run the graph under a durable engine
// (engine.Config.Checkpoints) to resume it.
func (c *Compiled[S]) Invoke(ctx context.Context, input S) (S, error) {
	var zero S
	raw, err := json.Marshal(input)
	if err != nil {
		return zero, fmt.Errorf("graph %s: encode input: %w", c.name, err)
	}
	return agent.InvokeAs[S](ctx, c, json.RawMessage(raw))
}

func (c *Compiled[S]) start(ctx context.Context, r *agent.Run, input json.RawMessage) (json.RawMessage, error) {
	var in fields
	if err := json.Unmarshal(input, &in); err != nil || in == nil {
		return nil, fmt.Errorf("%w: graph %s: the input must be a JSON object of state fields, got %.100s", agent.ErrInvalidInput, c.name, input)
	}
	var zero S
	state, err := encode(zero)
	if err != nil {
		return nil, err
	}
	var ws []Write
	for _, k := range c.fields {
		if v, ok := in[k]; ok {
			ws = append(ws, Write{Field: k, Value: v})
		}
	}
	if state, err = c.apply(state, []task{{ID: "input", Node: "input"}}, map[string][]Write{"input": ws}, 0); err != nil {
		return nil, fmt.Errorf("%w: graph %s: %w", agent.ErrInvalidInput, c.name, err)
	}
	p := &progress{State: state}
	if p.Next, err = c.successors(ctx, p, []string{START}); err != nil {
		return nil, err
	}
	return c.loop(ctx, r, p)
}

// loop runs steps from p until the graph ends, asks or fails. Each step is
// a nested run whose output is the progress after it; a step an engine's
// journal holds is replayed, and its recorded output read back.
//
// A resumed run starts from the output of the last step that had ended
// ([agentrt.SkipEnded]): each step's output is the whole progress, so
// the steps before it are neither run nor replayed, and a resume costs the
// same after 10 steps as after 10,000.
func (c *Compiled[S]) loop(ctx context.Context, r *agent.Run, p *progress) (json.RawMessage, error) {
	if end, ok := agentrt.SkipEnded(ctx, r); ok {
		if end.Err != nil {
			return nil, end.Err
		}
		var err error
		if p, err = readProgress(c.name, end.Output); err != nil {
			return nil, err
		}
	}
	for len(p.Next) > 0 {
		if p.Step >= c.maxSteps {
			return nil, c.stepLimit(p)
		}
		in, _ := json.Marshal(map[string]any{"step": p.Step + 1, "tasks": taskIDs(p.Next)})
		cur := p
		step := bodyAgent{name: "step", body: func(ctx context.Context, sr *agent.Run) (json.RawMessage, error) {
			return c.step(ctx, sr, cur)
		}}
		end, err := agentrt.Child(ctx, r, step, in)
		if err != nil {
			return nil, err
		}
		if p, err = readProgress(c.name, end.Output); err != nil {
			return nil, err
		}
	}
	return json.Marshal(p.State)
}

func taskIDs(ts []task) []string {
	ids := make([]string, len(ts))
	for i, t := range ts {
		ids[i] = t.ID
	}
	return ids
}

// stepLimit reports the limit reached at p, with the node runs of every
// step since the run started (p.Runs), in this process or before a resume.
func (c *Compiled[S]) stepLimit(p *progress) error {
	runs := p.runs(c.order)
	var looping []string
	for n, k := range runs {
		if k > 1 {
			looping = append(looping, n)
		}
	}
	slices.SortFunc(looping, func(a, b string) int {
		return cmp.Or(cmp.Compare(runs[b], runs[a]), cmp.Compare(a, b))
	})
	next := taskIDs(p.Next)
	if len(looping) == 0 {
		looping = next
	}
	return &StepLimitError{Limit: c.maxSteps, Steps: p.Step, Runs: runs, Looping: looping, Next: next}
}

// taskOutput is a task run's output: its writes.
type taskOutput struct {
	Writes []Write `json:"writes"`
}

// step runs the tasks of p.Next and returns the progress after them. A
// task that asks makes the step end with the questions of every task that
// asked; the tasks that ended are not run again when the run resumes.
func (c *Compiled[S]) step(ctx context.Context, sr *agent.Run, p *progress) (json.RawMessage, error) {
	stepNo := p.Step + 1
	jobs := make([]agentrt.Job, len(p.Next))
	for i, t := range p.Next {
		in := p.State
		if t.State != nil {
			in = t.State
		}
		raw, _ := json.Marshal(in)
		jobs[i] = agentrt.Job{Agent: bodyAgent{name: t.Node, body: func(ctx context.Context, nr *agent.Run) (json.RawMessage, error) {
			ws, err := c.runTask(ctx, nr, t, in)
			if err != nil {
				return nil, err
			}
			return json.Marshal(taskOutput{Writes: ws})
		}}, Input: raw}
	}
	outs, err := agentrt.Fan(ctx, sr, jobs, agentrt.FanOptions{Limit: c.maxPar, Collect: true})
	if err != nil {
		return nil, err
	}
	done := map[string][]Write{}
	var failures, asks []error
	for i, o := range outs {
		t := p.Next[i]
		switch {
		case o.Err == nil:
			var out taskOutput
			if err := json.Unmarshal(o.End.Output, &out); err != nil {
				failures = append(failures, &NodeError{Node: t.ID, Step: stepNo, Err: fmt.Errorf("the task's recorded output is not its writes: %w", err)})
				continue
			}
			done[t.ID] = out.Writes
		case errors.Is(o.Err, agent.ErrInterrupted):
			asks = append(asks, o.Err)
		default:
			failures = append(failures, &NodeError{Node: t.ID, Step: stepNo, Err: o.Err})
		}
	}
	if len(failures) > 0 {
		return nil, errors.Join(failures...)
	}
	if ie := agentrt.Interrupts(asks...); ie != nil {
		return nil, ie
	}
	state, err := c.apply(p.State, p.Next, done, stepNo)
	if err != nil {
		return nil, err
	}
	next := &progress{Step: stepNo, State: state, Joins: cloneJoins(p.Joins)}
	ranAfter(next, p, c.order)
	if next.Next, err = c.successors(ctx, next, taskNodes(p.Next)); err != nil {
		return nil, err
	}
	return json.Marshal(next)
}

func taskNodes(ts []task) []string {
	ns := make([]string, len(ts))
	for i, t := range ts {
		ns[i] = t.Node
	}
	return ns
}

// apply applies the writes of tasks (in task order) to state through the
// reducers and returns the new state.
func (c *Compiled[S]) apply(state fields, tasks []task, done map[string][]Write, stepNo int) (fields, error) {
	type w struct {
		task  string
		value json.RawMessage
	}
	byField := map[string][]w{}
	for _, t := range tasks {
		for _, x := range done[t.ID] {
			byField[x.Field] = append(byField[x.Field], w{t.ID, x.Value})
		}
	}
	out := maps.Clone(state)
	for _, f := range c.fields {
		ws := byField[f]
		if len(ws) == 0 {
			continue
		}
		r, ok := c.reducers[f]
		if !ok {
			if len(ws) > 1 {
				nodes := make([]string, len(ws))
				for i, x := range ws {
					nodes[i] = x.task
				}
				return nil, &WriteConflictError{Field: f, Nodes: nodes, Step: stepNo}
			}
			out[f] = ws[0].value
			continue
		}
		cur := out.value(f)
		for _, x := range ws {
			v, err := r.apply(cur, x.value)
			if err != nil {
				return nil, fmt.Errorf("step %d: field %q (reducer %s): write of %q: %w", stepNo, f, r.name, x.task, err)
			}
			cur = v
		}
		out[f] = cur
	}
	return normalize[S](out)
}

// successors returns the tasks the nodes that ran activate, given the
// state after their step, sorted by task id; it updates rec.Joins.
func (c *Compiled[S]) successors(ctx context.Context, rec *progress, ran []string) ([]task, error) {
	s, err := decode[S](rec.State)
	if err != nil {
		return nil, err
	}
	static := map[string]bool{}
	var sends []task
	sendN := map[string]int{}
	seen := map[string]bool{}
	for _, from := range ran {
		if seen[from] {
			continue
		}
		seen[from] = true
		for _, to := range c.edges[from] {
			static[to] = true
		}
		for _, b := range c.branches[from] {
			if b.route != nil {
				tos, err := b.route(ctx, s)
				if err != nil {
					return nil, fmt.Errorf("graph %s: branch from %q: %w", c.name, from, err)
				}
				for _, to := range tos {
					if !slices.Contains(b.targets, to) {
						return nil, fmt.Errorf("graph %s: branch from %q returned %q, which is not one of its targets %v; declare it in Branch", c.name, from, to, b.targets)
					}
					static[to] = true
				}
				continue
			}
			ss, err := b.send(ctx, s)
			if err != nil {
				return nil, fmt.Errorf("graph %s: dispatch from %q: %w", c.name, from, err)
			}
			for _, x := range ss {
				if !slices.Contains(b.targets, x.Node) {
					return nil, fmt.Errorf("graph %s: dispatch from %q sent to %q, which is not one of its targets %v; declare it in Dispatch", c.name, from, x.Node, b.targets)
				}
				f, err := encode(x.State)
				if err != nil {
					return nil, err
				}
				sends = append(sends, task{ID: x.Node + "#" + strconv.Itoa(sendN[x.Node]), Node: x.Node, State: f})
				sendN[x.Node]++
			}
		}
		for _, j := range c.joins {
			if !slices.Contains(j.from, from) {
				continue
			}
			if rec.Joins == nil {
				rec.Joins = map[string][]string{}
			}
			key := j.to + "<" + fmt.Sprint(j.from)
			if !slices.Contains(rec.Joins[key], from) {
				rec.Joins[key] = append(rec.Joins[key], from)
			}
			if len(rec.Joins[key]) == len(j.from) {
				delete(rec.Joins, key)
				static[j.to] = true
			}
		}
	}
	delete(static, END)
	next := sends
	for n := range static {
		next = append(next, task{ID: n, Node: n})
	}
	slices.SortFunc(next, func(a, b task) int { return cmp.Compare(a.ID, b.ID) })
	if len(rec.Joins) == 0 {
		rec.Joins = nil
	}
	return next, nil
}
