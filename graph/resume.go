package graph

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"maps"
	"slices"
	"strings"

	"github.com/loomwork/loom/agent"
	"github.com/loomwork/loom/checkpoint"
)

// Resume continues the thread from its head checkpoint and yields the
// run's events, like [Compiled.Run].
//
// A thread waiting at human-input nodes needs answers, keyed by request
// id (see [Compiled.Pending]). Each answer is checked against its
// request's schema first: a mismatch is an error wrapping
// [agent.ErrInvalidAnswer], nothing is saved and the node keeps waiting.
// An answer to an Ask node becomes that node's output through its apply
// function: the node is not run again. An answer to a sub-graph's request
// resumes the sub-graph. Requests left unanswered keep waiting; the run
// ends again with an [*agent.InterruptedError] listing them once nothing
// else can run. An answer that matches no pending request is an error
// wrapping [ErrUnknownAnswer].
//
// A thread that failed, or whose process died in a step, is continued with
// no answers: the step's tasks that finished are not run again (their
// writes were saved), the others are. Nodes are thus at least once; wrap
// an effect that must not repeat in [Once].
//
// Resume claims the head by compare-and-swap before anything runs: of two
// resumes of one checkpoint (a double-clicked "approve") one advances, and
// the other fails with an error wrapping [ErrAlreadyResumed].
func (c *Compiled[S]) Resume(ctx context.Context, thread string, answers map[string]json.RawMessage) iter.Seq2[agent.Event, error] {
	in, _ := json.Marshal(map[string]any{"resume": thread, "answers": slices.Sorted(maps.Keys(answers))})
	return agent.Execute(ctx, c, in, func(ctx context.Context, r *agent.Run) (json.RawMessage, error) {
		seq, rec, err := c.claim(ctx, thread, answers)
		if err != nil {
			return nil, err
		}
		// The thread's checkpoints, not a journal of an engine's resume
		// this may run within, say what ran.
		return c.loop(agent.WithJournal(ctx, nil), r, thread, seq, rec)
	})
}

// ResumeInvoke resumes the thread (see [Compiled.Resume]) and returns the
// final state.
func (c *Compiled[S]) ResumeInvoke(ctx context.Context, thread string, answers map[string]json.RawMessage) (S, error) {
	var s S
	out, err := agent.Collect(c.Resume(ctx, thread, answers))
	if err != nil {
		return s, err
	}
	if err := json.Unmarshal(out, &s); err != nil {
		return s, fmt.Errorf("graph %s: decode the final state: %w", c.name, err)
	}
	return s, nil
}

// claim checks the answers against the thread's head, applies the answers
// to Ask nodes, and saves the "resume" checkpoint that claims the head.
func (c *Compiled[S]) claim(ctx context.Context, thread string, answers map[string]json.RawMessage) (int64, *record, error) {
	seq, rec, err := c.head(ctx, thread)
	if err != nil {
		return 0, nil, err
	}
	if rec == nil {
		return 0, nil, fmt.Errorf("%w: graph %s: thread %q has no checkpoints; start it with Run", ErrNothingToResume, c.name, thread)
	}
	for _, id := range slices.Sorted(maps.Keys(answers)) {
		if !slices.ContainsFunc(rec.Waiting, func(q Request) bool { return q.ID == id }) {
			if c.askedBefore(ctx, thread, id) {
				return 0, nil, fmt.Errorf("%w: graph %s: thread %q: request %s was answered by an earlier resume; the thread is now %s at checkpoint %d", ErrAlreadyResumed, c.name, thread, id, rec.Status, seq)
			}
			return 0, nil, fmt.Errorf("%w: graph %s: thread %q: answer %q; the thread waits for %s", ErrUnknownAnswer, c.name, thread, id, pendingIDs(rec.Waiting))
		}
	}
	switch {
	case rec.Status == StatusDone:
		return 0, nil, fmt.Errorf("%w: graph %s: thread %q ended at checkpoint %d; start a new run on it with Run", ErrNothingToResume, c.name, thread, seq)
	case rec.Status == StatusWaiting && len(answers) == 0:
		return 0, nil, fmt.Errorf("%w: graph %s: thread %q waits for answers to %s; pass them to Resume", ErrNothingToResume, c.name, thread, pendingIDs(rec.Waiting))
	}
	next := rec.clone()
	if next.Done == nil {
		next.Done = map[string][]Write{}
	}
	for _, q := range rec.Waiting {
		a, ok := answers[q.ID]
		if !ok {
			continue
		}
		if err := agent.CheckAnswer(q.question(nil), a); err != nil {
			return 0, nil, fmt.Errorf("graph %s: thread %q node %q: %w", c.name, thread, q.Node, err)
		}
		if q.Thread != "" {
			if next.Answers == nil {
				next.Answers = map[string]json.RawMessage{}
			}
			next.Answers[q.ID] = a
			continue
		}
		ws, err := c.applyAnswer(rec, q, a)
		if err != nil {
			return 0, nil, fmt.Errorf("graph %s: thread %q: %w", c.name, thread, &NodeError{Node: q.Node, Step: rec.Step + 1, Err: err})
		}
		next.Done[q.Node] = ws
		next.Waiting = slices.DeleteFunc(next.Waiting, func(x Request) bool { return x.ID == q.ID })
	}
	next.Status, next.Error = StatusRunning, ""
	if err := c.put(ctx, thread, seq+1, "resume", next); err != nil {
		if errors.Is(err, checkpoint.ErrConflict) {
			return 0, nil, fmt.Errorf("%w: %w", ErrAlreadyResumed, err)
		}
		return 0, nil, err
	}
	return seq + 1, next, nil
}

// applyAnswer returns the writes of Ask node q's answer a, as the node's
// output.
func (c *Compiled[S]) applyAnswer(rec *record, q Request, a json.RawMessage) ([]Write, error) {
	i := slices.IndexFunc(rec.Next, func(t task) bool { return t.ID == q.Node })
	if i < 0 {
		return nil, fmt.Errorf("%w: request %s names task %q, which is not in the step", ErrFormat, q.ID, q.Node)
	}
	t := rec.Next[i]
	n := c.nodes[t.Node]
	if n == nil || n.kind != kindAsk {
		return nil, fmt.Errorf("%w: request %s names node %q, which is not a human-input node of this graph", ErrFormat, q.ID, t.Node)
	}
	in := rec.State
	if t.State != nil {
		in = t.State
	}
	s, err := decode[S](in)
	if err != nil {
		return nil, err
	}
	out, err := n.apply(s, a)
	if err != nil {
		return nil, fmt.Errorf("apply the answer: %w", err)
	}
	after, err := encode(out)
	if err != nil {
		return nil, err
	}
	return diff(in, after, c.fields, c.reducers)
}

// askedBefore reports whether an earlier checkpoint of the thread waited
// for request id.
func (c *Compiled[S]) askedBefore(ctx context.Context, thread, id string) bool {
	cps, err := c.store.List(ctx, thread)
	if err != nil {
		return false
	}
	for _, cp := range cps {
		if rec, err := readRecord(cp); err == nil && slices.ContainsFunc(rec.Waiting, func(q Request) bool { return q.ID == id }) {
			return true
		}
	}
	return false
}

func pendingIDs(qs []Request) string {
	if len(qs) == 0 {
		return "no request"
	}
	ids := make([]string, len(qs))
	for i, q := range qs {
		ids[i] = fmt.Sprintf("%q (node %s)", q.ID, q.Node)
	}
	return strings.Join(ids, ", ")
}

// Pending returns the requests the thread waits for (none when it does
// not wait).
func (c *Compiled[S]) Pending(ctx context.Context, thread string) ([]Request, error) {
	_, rec, err := c.head(ctx, thread)
	if err != nil || rec == nil {
		return nil, err
	}
	return rec.Waiting, nil
}
