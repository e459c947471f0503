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
)

// bodyAgent is an internal agent for a step or a node run, so that each
// shows in the event stream and the trace as a run of its own.
type bodyAgent struct {
	name string
	body agent.Body
}

func (a bodyAgent) Name() string                  { return a.name }
func (a bodyAgent) Description() string           { return "" }
func (a bodyAgent) InputSchema() json.RawMessage  { return nil }
func (a bodyAgent) OutputSchema() json.RawMessage { return nil }
func (a bodyAgent) Run(ctx context.Context, input json.RawMessage) iter.Seq2[agent.Event, error] {
	return agent.Execute(ctx, a, input, a.body)
}

// Run runs the graph on input, a JSON object of state fields, under the
// thread on ctx ([WithThread]). On a new thread the state starts from the
// zero S; on a thread whose last run ended, from that run's final state,
// so a thread carries a conversation over many runs. Each input field is a
// write through the field's reducer (an Append field gets the elements
// appended); keys that are not fields of S are ignored, as a function
// agent ignores them, so that the graph nests in compositions that pass
// on more. The output is the final state. A run that reaches a
// human-input node ends with an [*agent.InterruptedError]; continue it with
// [Compiled.Resume], or, when the graph runs within an engine's run
// (engine.Engine.Resume), by resuming that run: the graph then goes on from
// its thread's checkpoint with the answers given to the engine for its
// requests, and no step that ran is run again. Run on a thread that has
// not ended, outside such a resume, fails with [ErrThreadBusy].
//
// The events are those of a run whose children are the steps: each step is
// a nested run named "step" whose input lists its tasks and whose output
// gives the checkpoint saved, the status and the next tasks; each task is
// a nested run of the step named for its node, whose output is its writes.
func (c *Compiled[S]) Run(ctx context.Context, input json.RawMessage) iter.Seq2[agent.Event, error] {
	return agent.Execute(ctx, c, input, func(ctx context.Context, r *agent.Run) (json.RawMessage, error) {
		return c.start(ctx, r, input)
	})
}

// Invoke runs the graph under thread with every field of input as a write
// (see [Compiled.Run]) and returns the final state.
func (c *Compiled[S]) Invoke(ctx context.Context, thread string, input S) (S, error) {
	var zero S
	raw, err := json.Marshal(input)
	if err != nil {
		return zero, fmt.Errorf("graph %s: encode input: %w", c.name, err)
	}
	return agent.InvokeAs[S](WithThread(ctx, thread), c, json.RawMessage(raw))
}

func (c *Compiled[S]) start(ctx context.Context, r *agent.Run, input json.RawMessage) (json.RawMessage, error) {
	thread := threadFrom(ctx, r.ID)
	var in fields
	if err := json.Unmarshal(input, &in); err != nil || in == nil {
		return nil, fmt.Errorf("%w: graph %s: the input must be a JSON object of state fields, got %.100s", agent.ErrInvalidInput, c.name, input)
	}
	seq, head, err := c.head(ctx, thread)
	if err != nil {
		return nil, err
	}
	j := agent.JournalFrom(ctx)
	if head != nil && head.Run == r.ID && j != nil {
		// An engine resumes the run that started the thread's current run.
		if head.Status == StatusDone {
			// It ended before the engine recorded its end: its final
			// state, without running anything again.
			return json.Marshal(head.State)
		}
		return c.resumed(ctx, r, thread, j, head)
	}
	if head == nil && j.HasNested(r.ID) {
		// The run's steps ran before, so its thread has checkpoints; this
		// is another thread, and starting afresh would run them again.
		// The run stays paused (the error is an interruption), so that a
		// resume with the right thread continues it.
		return nil, fmt.Errorf("%w: graph %s: run %s ran steps before, but thread %q has no checkpoints: resume it with the thread it ran on (graph.WithThread): %w", ErrNothingToResume, c.name, r.ID, thread, &agent.InterruptedError{Questions: j.Pending()})
	}
	rec := &record{Run: r.ID}
	if head == nil {
		var zero S
		if rec.State, err = encode(zero); err != nil {
			return nil, err
		}
	} else {
		if head.Status != StatusDone {
			return nil, fmt.Errorf("%w: graph %s: thread %q is %s at checkpoint %d; continue it with Resume, or run on a new thread", ErrThreadBusy, c.name, thread, head.Status, seq)
		}
		rec.State, rec.Step = head.State, head.Step
	}
	var ws []Write
	for _, k := range c.fields {
		if v, ok := in[k]; ok {
			ws = append(ws, Write{Field: k, Value: v})
		}
	}
	state, err := c.apply(rec.State, []task{{ID: "input", Node: "input"}}, map[string][]Write{"input": ws}, rec.Step)
	if err != nil {
		return nil, fmt.Errorf("%w: graph %s: %w", agent.ErrInvalidInput, c.name, err)
	}
	rec.State, rec.RunStep, rec.Status = state, rec.Step, StatusRunning
	if rec.Next, err = c.successors(ctx, rec, []string{START}); err != nil {
		return nil, err
	}
	if len(rec.Next) == 0 {
		rec.Status = StatusDone
	}
	seq++
	if err := c.put(ctx, thread, seq, "input", rec); err != nil {
		return nil, err
	}
	return c.loop(ctx, r, thread, seq, rec)
}

// resumed continues thread, whose head is not done and was started by run
// r, within r resumed by an engine from its journal j (the graph is the
// engine's agent, or nested in it): as [Compiled.Resume] does, with the
// answers j holds for the requests the thread waits for. The graph's own
// runs go on without the journal, from the thread's checkpoint: steps that
// ran are not run again, and the input was applied when the thread
// started.
func (c *Compiled[S]) resumed(ctx context.Context, r *agent.Run, thread string, j *agent.Journal, head *record) (json.RawMessage, error) {
	answers := map[string]json.RawMessage{}
	for _, q := range head.Waiting {
		if a, ok := j.Answer(q.ID); ok {
			answers[q.ID] = a
		}
	}
	if head.Status == StatusWaiting && len(answers) == 0 {
		// Resumed with none of its answers: it asks again and keeps
		// waiting, as an [agent.Ask] does.
		qs := make([]agent.Question, len(head.Waiting))
		for i, q := range head.Waiting {
			qs[i] = q.question(r)
			if !r.Emit(agent.Event{Kind: agent.EventInterrupt, Question: &qs[i]}) {
				return nil, agent.ErrStopped
			}
		}
		return nil, &agent.InterruptedError{Questions: qs}
	}
	seq, rec, err := c.claim(ctx, thread, answers)
	if err != nil {
		return nil, err
	}
	return c.loop(agent.WithJournal(ctx, nil), r, thread, seq, rec)
}

// loop runs steps from checkpoint seq (whose record is rec) until the
// graph ends, asks or fails.
func (c *Compiled[S]) loop(ctx context.Context, r *agent.Run, thread string, seq int64, rec *record) (json.RawMessage, error) {
	for rec.Status != StatusDone {
		if rec.Step-rec.RunStep >= c.maxSteps {
			return nil, c.stepLimit(rec)
		}
		in, _ := json.Marshal(map[string]any{"step": rec.Step + 1, "tasks": taskIDs(rec.Next)})
		var next *record
		step := bodyAgent{name: "step", body: func(ctx context.Context, sr *agent.Run) (json.RawMessage, error) {
			var err error
			next, err = c.step(ctx, sr, thread, seq, rec)
			if next == nil {
				return nil, err
			}
			seq++
			out, _ := json.Marshal(map[string]any{"step": next.Step, "checkpoint": seq, "status": next.Status, "next": taskIDs(next.Next)})
			return out, err
		}}
		if _, err := r.Child(ctx, step, in); err != nil {
			return nil, err
		}
		rec = next
	}
	return json.Marshal(rec.State)
}

func taskIDs(ts []task) []string {
	ids := make([]string, len(ts))
	for i, t := range ts {
		ids[i] = t.ID
	}
	return ids
}

func (c *Compiled[S]) stepLimit(rec *record) error {
	var looping []string
	for n, k := range rec.Runs {
		if k > 1 {
			looping = append(looping, n)
		}
	}
	slices.SortFunc(looping, func(a, b string) int {
		return cmp.Or(cmp.Compare(rec.Runs[b], rec.Runs[a]), cmp.Compare(a, b))
	})
	next := taskIDs(rec.Next)
	if len(looping) == 0 {
		looping = next
	}
	return &StepLimitError{Limit: c.maxSteps, Looping: looping, Next: next}
}

// taskResult is how one task of a step ended.
type taskResult struct {
	ran      bool
	writes   []Write
	requests []Request
	err      error
}

// step runs the tasks of rec.Next that have not finished and are not
// waiting, saves the checkpoint that follows (seq+1), and returns its
// record. A nil record means nothing was saved.
func (c *Compiled[S]) step(ctx context.Context, sr *agent.Run, thread string, seq int64, rec *record) (*record, error) {
	stepNo := rec.Step + 1
	results := make([]taskResult, len(rec.Next))
	var jobs []agent.Job
	var idx []int
	for i, t := range rec.Next {
		if _, done := rec.Done[t.ID]; done || rec.blocked(t.ID) {
			continue
		}
		in := rec.State
		if t.State != nil {
			in = t.State
		}
		raw, _ := json.Marshal(in)
		res := &results[i]
		jobs = append(jobs, agent.Job{Agent: bodyAgent{name: t.Node, body: func(ctx context.Context, nr *agent.Run) (json.RawMessage, error) {
			res.ran = true
			res.writes, res.requests, res.err = c.runTask(ctx, nr, thread, stepNo, t, in, rec)
			if res.err != nil {
				return nil, res.err
			}
			return json.Marshal(map[string]any{"writes": res.writes})
		}}, Input: raw})
		idx = append(idx, i)
	}
	outs, err := sr.Fan(ctx, jobs, agent.FanOptions{Limit: c.maxPar, Collect: true})
	if err != nil {
		return nil, err
	}
	next := rec.clone()
	if next.Done == nil {
		next.Done = map[string][]Write{}
	}
	if next.Runs == nil {
		next.Runs = map[string]int{}
	}
	var failures []error
	for k, o := range outs {
		i := idx[k]
		t, res := rec.Next[i], results[i]
		if res.err == nil && o.Err != nil {
			// The task did not start, or its body panicked.
			res.err = o.Err
		}
		if res.ran {
			next.Runs[t.Node]++
		}
		// A task that ran drops its old requests and delivered answers.
		next.Waiting = slices.DeleteFunc(next.Waiting, func(q Request) bool {
			if q.Node == t.ID {
				delete(next.Answers, q.ID)
				return true
			}
			return false
		})
		switch {
		case res.err == nil:
			next.Done[t.ID] = res.writes
		case errors.Is(res.err, agent.ErrInterrupted) && len(res.requests) > 0:
			next.Waiting = append(next.Waiting, res.requests...)
		case errors.Is(res.err, agent.ErrInterrupted):
			// agent.Ask inside a node: the graph would have to run the node
			// again to hand it the answer, so it is refused, and not passed
			// on as an interruption the graph could not resume.
			failures = append(failures, &NodeError{Node: t.ID, Step: stepNo, Err: fmt.Errorf("the node asked a question with agent.Ask; a graph asks through graph.Ask nodes, whose answers become the node's output without running it again (%v)", res.err)})
		default:
			failures = append(failures, &NodeError{Node: t.ID, Step: stepNo, Err: res.err})
		}
	}
	if len(next.Answers) == 0 {
		next.Answers = nil
	}
	if len(failures) > 0 {
		err := errors.Join(failures...)
		next.Status, next.Error = StatusFailed, err.Error()
		// Saved even when ctx ended (a timeout is a common failure), so the
		// finished tasks' writes are kept.
		if perr := c.put(context.WithoutCancel(ctx), thread, seq+1, "failed", next); perr != nil {
			return nil, errors.Join(err, perr)
		}
		return next, err
	}
	if len(next.Waiting) > 0 {
		next.Status, next.Error = StatusWaiting, ""
		if err := c.put(ctx, thread, seq+1, "waiting", next); err != nil {
			return nil, err
		}
		ie := &agent.InterruptedError{}
		for _, q := range next.Waiting {
			ie.Questions = append(ie.Questions, q.question(sr))
		}
		return next, ie
	}
	state, err := c.apply(rec.State, rec.Next, next.Done, stepNo)
	if err != nil {
		next.Status, next.Error = StatusFailed, err.Error()
		if perr := c.put(ctx, thread, seq+1, "failed", next); perr != nil {
			return nil, errors.Join(err, perr)
		}
		return next, err
	}
	next.State, next.Step, next.Done, next.Error = state, stepNo, nil, ""
	next.Next, err = c.successors(ctx, next, taskNodes(rec.Next))
	if err != nil {
		return nil, err
	}
	kind := "step"
	next.Status = StatusRunning
	if len(next.Next) == 0 {
		next.Status, kind = StatusDone, "end"
	}
	if err := c.put(ctx, thread, seq+1, kind, next); err != nil {
		return nil, err
	}
	return next, nil
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
func (c *Compiled[S]) successors(ctx context.Context, rec *record, ran []string) ([]task, error) {
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
