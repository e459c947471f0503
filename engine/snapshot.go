package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"strings"

	"github.com/loomwork/loom/agent"
	"github.com/loomwork/loom/checkpoint"
	"github.com/loomwork/loom/model"
)

// snapshotJSON is a run's journal up to the checkpoint that holds it, as
// the engine saves it in [RunState.Snapshot]: the run's input, every
// answer given so far, and the events of every checkpoint up to it, with
// each nested run that ended (and whose parent had not) grouped apart with
// its totals. A resume decodes the events of the runs that have not ended;
// a grouped run is decoded only when the resumed run replays it, and not
// at all when its parent skips it ([agent.Run.SkipEnded]), as a graph skips
// its ended steps.
type snapshotJSON struct {
	Input   json.RawMessage            `json:"input,omitempty"`
	Events  json.RawMessage            `json:"events,omitempty"`
	Ended   []endedJSON                `json:"ended,omitempty"`
	Answers map[string]json.RawMessage `json:"answers,omitempty"`
}

// saved is what a run's checkpoints hold, read back.
type saved struct {
	head    checkpoint.Checkpoint
	start   RunState
	answers map[string]json.RawMessage
	items   []item // the journal in order, as read
	snapAt  int64  // the Seq of the latest checkpoint holding a snapshot, or 0

	// From items, by settle: the decoded events (those of grouped runs
	// left out), the grouped runs, and the finish reason over them all.
	events []agent.Event
	ended  []agent.EndedRun
	finish model.FinishReason
}

// load reads run runID's journal: from the head's snapshot when the head
// holds one, from the latest snapshot and the checkpoints after it when a
// checkpoint does, else from every checkpoint.
func (e *Engine) load(ctx context.Context, runID string) (*saved, error) {
	if e.store == nil {
		return nil, fmt.Errorf("%w: engine: the engine has no checkpoint store: create it with engine.WithCheckpoints", ErrNoCheckpoints)
	}
	head, err := e.store.Head(ctx, runID)
	if err != nil {
		return nil, readErr(runID, err)
	}
	st, err := decodeState(runID, head)
	if err != nil {
		return nil, err
	}
	if st.Snapshot != nil {
		if s := fromSnapshot(head, st); s != nil {
			return s, s.settle(runID)
		}
	} else if st.SnapshotAt > 0 && st.SnapshotAt < head.Seq {
		cps, err := checkpoint.ListFrom(ctx, e.store, runID, st.SnapshotAt)
		if err != nil {
			return nil, readErr(runID, err)
		}
		if s := fromTail(runID, cps, st.SnapshotAt); s != nil {
			return s, s.settle(runID)
		}
	}
	cps, err := e.store.List(ctx, runID)
	if err != nil {
		return nil, readErr(runID, err)
	}
	s := &saved{answers: map[string]json.RawMessage{}}
	for i, cp := range cps {
		st, err := s.add(runID, cp)
		if err != nil {
			return nil, err
		}
		if i == 0 {
			s.start = st
		}
	}
	return s, s.settle(runID)
}

// fromTail returns the journal of a snapshot at cps[0] (Seq at) and the
// checkpoints after it, or nil when cps[0] holds no usable snapshot.
func fromTail(runID string, cps []checkpoint.Checkpoint, at int64) *saved {
	if len(cps) == 0 || cps[0].Seq != at {
		return nil
	}
	st, err := decodeState(runID, cps[0])
	if err != nil || st.Snapshot == nil {
		return nil
	}
	s := fromSnapshot(cps[0], st)
	if s == nil {
		return nil
	}
	for _, cp := range cps[1:] {
		if _, err := s.add(runID, cp); err != nil {
			return nil
		}
	}
	return s
}

// fromSnapshot returns the journal that cp's snapshot holds, or nil when
// it cannot be read.
func fromSnapshot(cp checkpoint.Checkpoint, st RunState) *saved {
	var sn snapshotJSON
	if err := json.Unmarshal(st.Snapshot, &sn); err != nil {
		return nil
	}
	var raws []json.RawMessage
	if len(sn.Events) > 0 {
		if err := json.Unmarshal(sn.Events, &raws); err != nil {
			return nil
		}
	}
	items := make([]item, 0, len(raws)+len(sn.Ended))
	g := 0
	for i := 0; i <= len(raws); i++ {
		for ; g < len(sn.Ended) && (sn.Ended[g].At <= i || i == len(raws)); g++ {
			items = append(items, item{group: &sn.Ended[g]})
		}
		if i == len(raws) {
			break
		}
		var ev agent.Event
		if err := json.Unmarshal(raws[i], &ev); err != nil {
			return nil
		}
		items = append(items, item{raw: raws[i], infos: []evInfo{infoOf(ev)}, evs: []agent.Event{ev}})
	}
	answers := maps.Clone(sn.Answers)
	if answers == nil {
		answers = map[string]json.RawMessage{}
	}
	return &saved{
		head:    cp,
		start:   RunState{Format: RunFormat, Agent: st.Agent, Input: sn.Input, Status: "running"},
		answers: answers,
		items:   items,
		snapAt:  cp.Seq,
	}
}

// add appends checkpoint cp to the journal and returns its state.
func (s *saved) add(runID string, cp checkpoint.Checkpoint) (RunState, error) {
	st, err := decodeState(runID, cp)
	if err != nil {
		return st, err
	}
	maps.Copy(s.answers, st.Answers)
	if len(cp.Events) > 0 {
		var evs []agent.Event
		if err := json.Unmarshal(cp.Events, &evs); err != nil {
			return st, fmt.Errorf("%w: engine: run %s checkpoint %d: events: %w", checkpoint.ErrCorrupt, runID, cp.Seq, err)
		}
		if len(evs) > 0 {
			infos := make([]evInfo, len(evs))
			for i, ev := range evs {
				infos[i] = infoOf(ev)
			}
			s.items = append(s.items, item{raw: cp.Events, infos: infos, evs: evs})
		}
	}
	if st.Snapshot != nil {
		s.snapAt = cp.Seq
	}
	s.head = cp
	return st, nil
}

// settle derives the journal's events, grouped runs and finish reason
// from its items. A grouped run beneath a run that ended after the
// snapshot is decoded into the events, so that the replay of the run that
// ended holds it.
func (s *saved) settle(runID string) error {
	finals := map[string]bool{}
	for _, it := range s.items {
		for _, in := range it.infos {
			if in.final {
				finals[in.runID] = true
			}
		}
	}
	for i, it := range s.items {
		if it.group == nil || !endedAbove(it.group.ID, finals) {
			continue
		}
		var evs []agent.Event
		if err := json.Unmarshal(it.group.Events, &evs); err != nil {
			return fmt.Errorf("%w: engine: run %s: the snapshot's record of run %s: %w", checkpoint.ErrCorrupt, runID, it.group.ID, err)
		}
		infos := make([]evInfo, len(evs))
		for k, ev := range evs {
			infos[k] = infoOf(ev)
		}
		s.items[i] = item{raw: it.group.Events, infos: infos, evs: evs}
	}
	s.events, s.ended, s.finish = nil, nil, ""
	for _, it := range s.items {
		if it.group != nil {
			s.ended = append(s.ended, it.group.endedRun())
			s.finish = foldFinish(s.finish, it.group.Finish)
			continue
		}
		s.events = append(s.events, it.evs...)
		for _, in := range it.infos {
			if in.final {
				s.finish = foldFinish(s.finish, in.finish)
			}
		}
	}
	return nil
}

// recorded returns the items for a recorder that goes on from the
// journal: without their decoded events.
func (s *saved) recorded() []item {
	out := make([]item, len(s.items))
	for i, it := range s.items {
		it.evs = nil
		out[i] = it
	}
	return out
}

// endedAbove reports whether a run above run id (not id itself) ended.
func endedAbove(id string, finals map[string]bool) bool {
	for i := strings.LastIndexByte(id, '.'); i >= 0; i = strings.LastIndexByte(id, '.') {
		id = id[:i]
		if finals[id] {
			return true
		}
	}
	return false
}

// makeSnapshot returns the snapshot of a journal (items, in order) with
// the run's input and answers, and the journal's items grouped as the
// snapshot holds them.
func makeSnapshot(items []item, input json.RawMessage, answers map[string]json.RawMessage) (json.RawMessage, []item, error) {
	items, err := groupEnded(items)
	if err != nil {
		return nil, nil, err
	}
	var rest []json.RawMessage
	var ended []endedJSON
	n := 0
	for _, it := range items {
		if it.group != nil {
			g := *it.group
			g.At = n
			ended = append(ended, g)
			continue
		}
		rest = append(rest, it.raw)
		n += len(it.infos)
	}
	raw, err := json.Marshal(snapshotJSON{Input: input, Events: joinEvents(rest), Ended: ended, Answers: answers})
	if err != nil {
		return nil, nil, err
	}
	return raw, items, nil
}

// decodeState decodes a checkpoint's state.
func decodeState(runID string, cp checkpoint.Checkpoint) (RunState, error) {
	var st RunState
	if err := json.Unmarshal(cp.State, &st); err != nil || st.Format != RunFormat {
		return st, fmt.Errorf("%w: engine: run %s checkpoint %d is not a %s checkpoint", checkpoint.ErrCorrupt, runID, cp.Seq, RunFormat)
	}
	return st, nil
}

// readErr wraps a store's error in reading run runID.
func readErr(runID string, err error) error {
	if errors.Is(err, checkpoint.ErrNotFound) {
		return fmt.Errorf("%w: engine: run %q has no checkpoints in the engine's store: %w", ErrNoCheckpoints, runID, err)
	}
	return fmt.Errorf("engine: read run %s: %w", runID, err)
}
