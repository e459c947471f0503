package engine

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"strings"
	"time"

	"github.com/loomwork/loom/agent"
	"github.com/loomwork/loom/checkpoint"
	"github.com/loomwork/loom/model"
)

// Step is one checkpoint of a run, as [Engine.History] lists it: a point
// the run can be forked from ([Engine.Fork]).
type Step struct {
	// Seq is the checkpoint's position in the run, from 1.
	Seq int64
	// Kind is CheckpointStart, CheckpointStep, CheckpointInterrupt,
	// CheckpointResume or CheckpointEnd.
	Kind string
	// Time is when it was saved.
	Time time.Time
	// Status is "running", "interrupted", "done" or "failed".
	Status string
	// Events are the events saved with it: those since the previous
	// checkpoint, ending with the one that closed the step (a model
	// response, a nested run's end, a question, the run's end).
	Events []agent.Event
	// Questions are what the run waits for, on an interrupt checkpoint.
	Questions []agent.Question
	// Answers are the answers a resume gave, on a resume checkpoint.
	Answers map[string]json.RawMessage
	// Error is why the run failed, on a failed end.
	Error *agent.ErrorRecord
}

// History returns the checkpoints of run runID, oldest first: every step
// of the run, whatever its agent (an AI's model calls and tool runs, a
// graph's super-steps and node runs, the questions and answers), each of
// which [Engine.Fork] can branch from.
func (e *Engine) History(ctx context.Context, runID string) ([]Step, error) {
	cps, err := e.list(ctx, runID)
	if err != nil {
		return nil, err
	}
	out := make([]Step, len(cps))
	for i, cp := range cps {
		st, evs, err := decodeCheckpoint(runID, cp)
		if err != nil {
			return nil, err
		}
		out[i] = Step{Seq: cp.Seq, Kind: cp.Kind, Time: cp.Time, Status: st.Status, Events: evs, Questions: st.Questions, Answers: st.Answers, Error: st.Error}
	}
	return out, nil
}

// list reads run runID's checkpoints.
func (e *Engine) list(ctx context.Context, runID string) ([]checkpoint.Checkpoint, error) {
	if e.store == nil {
		return nil, fmt.Errorf("%w: engine: the engine has no checkpoint store: create it with engine.Config.Checkpoints", ErrNoCheckpoints)
	}
	cps, err := e.store.List(ctx, runID)
	if err != nil {
		return nil, readErr(runID, err)
	}
	return cps, nil
}

// decodeCheckpoint decodes a checkpoint's state and events.
func decodeCheckpoint(runID string, cp checkpoint.Checkpoint) (RunState, []agent.Event, error) {
	st, err := decodeState(runID, cp)
	if err != nil {
		return st, nil, err
	}
	var evs []agent.Event
	if len(cp.Events) > 0 {
		if err := json.Unmarshal(cp.Events, &evs); err != nil {
			return st, nil, fmt.Errorf("%w: engine: run %s checkpoint %d: events: %w", checkpoint.ErrCorrupt, runID, cp.Seq, err)
		}
	}
	return st, evs, nil
}

// ForkOption sets what [Engine.Fork] changes in the step it forks at.
type ForkOption func(*forkSpec)

type forkSpec struct {
	id       string
	response *string
	output   func(end agent.Event) (json.RawMessage, error)
}

// ForkID names the fork's run id; by default it is a new random id. The id
// must be new to the store and must not contain '.' or '?' (nested runs'
// and questions' ids are made of it).
func ForkID(id string) ForkOption { return func(f *forkSpec) { f.id = id } }

// ReplaceResponse makes the model response the forked step recorded (the
// last one at or before it) answer text instead, with no tool calls: the
// fork's agent continues as if the model had said text.
func ReplaceResponse(text string) ForkOption { return func(f *forkSpec) { f.response = &text } }

// EditOutput replaces the output of the nested run whose end closed the
// forked step (a tool's result, a graph step's state) by what fn returns
// from that run's recorded end: the fork's agent continues from the edited
// output. A graph offers a typed form of it (graph's EditState).
func EditOutput(fn func(end agent.Event) (json.RawMessage, error)) ForkOption {
	return func(f *forkSpec) { f.output = fn }
}

// Fork starts a new run as a branch of run runID at its checkpoint seq
// (time travel): the new run's record is a copy of checkpoints 1..seq,
// with the ids of the run, its nested runs and its questions renamed, and
// the step at seq changed as the options say. The original run is left as
// it was. It returns the new run's id; continue it with [Engine.Resume]
// (with the original's agent), giving answers when it waits: forking at a
// question's interrupt checkpoint and resuming with another answer changes
// the answer. A fork at a run's end continues from just before the end.
// What the copied steps did is replayed, not done again; what comes after
// seq runs anew.
func (e *Engine) Fork(ctx context.Context, runID string, seq int64, opts ...ForkOption) (string, error) {
	var f forkSpec
	for _, o := range opts {
		o(&f)
	}
	cps, err := e.list(ctx, runID)
	if err != nil {
		return "", err
	}
	if seq < 1 || seq > int64(len(cps)) {
		return "", fmt.Errorf("%w: engine: fork run %s at checkpoint %d: it has checkpoints 1 to %d (see Engine.History)", agent.ErrInvalidConfig, runID, seq, len(cps))
	}
	to := f.id
	if to == "" {
		b := make([]byte, 8)
		_, _ = rand.Read(b)
		b[0] |= 0x80
		to = hex.EncodeToString(b)
	}
	if to == runID || strings.ContainsAny(to, ".?") {
		return "", fmt.Errorf("%w: engine: fork id %q: name a new run, without '.' or '?'", agent.ErrInvalidConfig, to)
	}
	rn := renamer{from: runID, to: to}
	puts := make([]checkpoint.Checkpoint, 0, seq)
	for i, cp := range cps[:seq] {
		st, evs, err := decodeCheckpoint(runID, cp)
		if err != nil {
			return "", err
		}
		for k := range evs {
			rn.event(&evs[k])
		}
		// The fork's record is its checkpoints' events: the original's
		// snapshots name the original's ids and may cover steps past seq.
		st.Snapshot, st.SnapshotAt = nil, 0
		for k := range st.Questions {
			rn.question(&st.Questions[k])
		}
		if st.Answers != nil {
			answers := make(map[string]json.RawMessage, len(st.Answers))
			for id, a := range st.Answers {
				answers[rn.id(id)] = a
			}
			st.Answers = answers
		}
		kind := cp.Kind
		if int64(i) == seq-1 {
			if kind == CheckpointEnd {
				// Continue from just before the end: drop the root's end.
				evs = dropRootEnd(evs)
				kind, st.Status, st.Error = CheckpointStep, "running", nil
			}
			if evs, err = f.edit(runID, seq, evs); err != nil {
				return "", err
			}
		}
		raw, err := json.Marshal(st)
		if err != nil {
			return "", fmt.Errorf("engine: fork run %s: encode state: %w", runID, err)
		}
		events, err := json.Marshal(evs)
		if err != nil {
			return "", fmt.Errorf("engine: fork run %s: encode events: %w", runID, err)
		}
		meta := maps.Clone(cp.Meta)
		if meta == nil {
			meta = map[string]string{}
		}
		meta["status"], meta["fork_of"] = st.Status, fmt.Sprintf("%s@%d", runID, seq)
		puts = append(puts, checkpoint.Checkpoint{RunID: to, Seq: cp.Seq, Kind: kind, Time: cp.Time, State: raw, Events: events, Meta: meta})
	}
	// Written once every change is made, so a fork the options refuse
	// leaves no partial run behind.
	for _, cp := range puts {
		if err := e.store.Put(ctx, cp); err != nil {
			return "", fmt.Errorf("engine: fork run %s into %s (a new run id is needed): %w", runID, to, err)
		}
	}
	return to, nil
}

// edit applies the fork's changes to the events of its last step.
func (f *forkSpec) edit(runID string, seq int64, evs []agent.Event) ([]agent.Event, error) {
	if f.response != nil {
		i := lastIndex(evs, func(ev agent.Event) bool { return ev.Kind == agent.EventModelResponse })
		if i < 0 {
			return nil, fmt.Errorf("%w: engine: fork run %s at checkpoint %d: the step holds no model response to replace; fork at a step whose last event is a model response", agent.ErrInvalidConfig, runID, seq)
		}
		call := evs[i].RunID
		resp := model.Response{Message: model.AssistantMessage(*f.response), FinishReason: model.FinishStop}
		if evs[i].Response != nil {
			resp.Usage = evs[i].Response.Usage
		}
		evs[i].Response, evs[i].FinishReason = &resp, model.FinishStop
		// The call's text deltas say the new text.
		kept := evs[:0:0]
		delta := false
		for k, ev := range evs {
			if ev.Kind == agent.EventTextDelta && ev.RunID == call && k < i {
				if !delta {
					ev.Text, delta = *f.response, true
					kept = append(kept, ev)
				}
				continue
			}
			kept = append(kept, ev)
		}
		evs = kept
	}
	if f.output != nil {
		i := lastIndex(evs, func(ev agent.Event) bool { return ev.Kind == agent.EventRunEnd && ev.ParentID != "" })
		if i < 0 {
			return nil, fmt.Errorf("%w: engine: fork run %s at checkpoint %d: no nested run ended at that step; fork at a step whose last event is a nested run's end", agent.ErrInvalidConfig, runID, seq)
		}
		out, err := f.output(evs[i])
		if err != nil {
			return nil, fmt.Errorf("engine: fork run %s at checkpoint %d: edit the output of run %s: %w", runID, seq, evs[i].RunID, err)
		}
		evs[i].Output, evs[i].Err = out, nil
	}
	return evs, nil
}

func lastIndex(evs []agent.Event, ok func(agent.Event) bool) int {
	for i := len(evs) - 1; i >= 0; i-- {
		if ok(evs[i]) {
			return i
		}
	}
	return -1
}

func dropRootEnd(evs []agent.Event) []agent.Event {
	out := evs[:0:0]
	for _, ev := range evs {
		if ev.Kind == agent.EventRunEnd && ev.ParentID == "" {
			continue
		}
		out = append(out, ev)
	}
	return out
}

// renamer moves ids from one root run to another.
type renamer struct{ from, to string }

// id renames a run id, or a question id made of one.
func (rn renamer) id(id string) string {
	if id == rn.from {
		return rn.to
	}
	if rest, ok := strings.CutPrefix(id, rn.from); ok && rest != "" && (rest[0] == '.' || rest[0] == '?') {
		return rn.to + rest
	}
	return id
}

func (rn renamer) question(q *agent.Question) {
	q.ID, q.Run = rn.id(q.ID), rn.id(q.Run)
}

func (rn renamer) event(ev *agent.Event) {
	ev.RunID, ev.ParentID = rn.id(ev.RunID), rn.id(ev.ParentID)
	if ev.Question != nil {
		q := *ev.Question
		rn.question(&q)
		ev.Question = &q
	}
	var ie *agent.InterruptedError
	if errors.As(ev.Err, &ie) {
		c := &agent.InterruptedError{Questions: append([]agent.Question(nil), ie.Questions...)}
		for k := range c.Questions {
			rn.question(&c.Questions[k])
		}
		ev.Err = c
	}
}
