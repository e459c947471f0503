package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"strconv"
	"strings"
	"sync"

	"github.com/loomwork/loom/agent"
	"github.com/loomwork/loom/checkpoint"
	"github.com/loomwork/loom/model"
)

// snapshotJSON is a run's journal up to the checkpoint that holds it, as
// the engine saves it in [RunState.Snapshot]: the run's input, every
// answer given so far, the events of the runs that had not ended (with the
// checkpoint each was saved with), and, for the nested runs that ended
// (and whose parent had not), a reference to the checkpoints that hold
// their events, with their totals. A resume decodes the events of the runs
// that have not ended; it reads an ended run's events only when the
// resumed run replays it, and not at all when its parent skips it
// ([agent.Run.SkipEnded]), as a graph skips its ended steps; consecutive
// ended runs of one parent are one reference, so a graph's snapshot does
// not grow with its steps.
type snapshotJSON struct {
	Input   json.RawMessage            `json:"input,omitempty"`
	Events  []restJSON                 `json:"events,omitempty"`
	Ended   []rangeJSON                `json:"ended,omitempty"`
	Answers map[string]json.RawMessage `json:"answers,omitempty"`
}

// restJSON is events of runs that had not ended, saved with checkpoint Seq.
type restJSON struct {
	Seq    int64           `json:"seq"`
	Events json.RawMessage `json:"events"`
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
	ended  []agent.EndedRuns
	finish model.FinishReason
}

// load reads run runID's journal: from the head's snapshot when the head
// holds one, from the latest snapshot and the checkpoints after it when a
// checkpoint does, else from every checkpoint.
func (e *Engine) load(ctx context.Context, runID string) (*saved, error) {
	if e.store == nil {
		return nil, fmt.Errorf("%w: engine: the engine has no checkpoint store: create it with engine.Config.Checkpoints", ErrNoCheckpoints)
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
			return s, s.settle(ctx, e, runID)
		}
	} else if st.SnapshotAt > 0 && st.SnapshotAt < head.Seq {
		cps, err := checkpoint.ListFrom(ctx, e.store, runID, st.SnapshotAt)
		if err != nil {
			return nil, readErr(runID, err)
		}
		if s := fromTail(runID, cps, st.SnapshotAt); s != nil {
			return s, s.settle(ctx, e, runID)
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
	return s, s.settle(ctx, e, runID)
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
	items := make([]item, 0, len(sn.Events)+len(sn.Ended))
	g, n := 0, 0
	for i := 0; i <= len(sn.Events); i++ {
		for ; g < len(sn.Ended) && (sn.Ended[g].At <= n || i == len(sn.Events)); g++ {
			items = append(items, item{group: &sn.Ended[g]})
		}
		if i == len(sn.Events) {
			break
		}
		r := sn.Events[i]
		var evs []agent.Event
		if err := json.Unmarshal(r.Events, &evs); err != nil {
			return nil
		}
		items = append(items, item{seq: r.Seq, raw: r.Events, infos: infosOf(evs), evs: evs})
		n += len(evs)
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

func infosOf(evs []agent.Event) []evInfo {
	infos := make([]evInfo, len(evs))
	for i, ev := range evs {
		infos[i] = infoOf(ev)
	}
	return infos
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
			s.items = append(s.items, item{seq: cp.Seq, raw: cp.Events, infos: infosOf(evs), evs: evs})
		}
	}
	if st.Snapshot != nil {
		s.snapAt = cp.Seq
	}
	s.head = cp
	return st, nil
}

// settle derives the journal's events, ended runs and finish reason from
// its items. The events of runs referred to beneath a run that ended after
// the snapshot are read into the events, so that the replay of the run
// that ended holds them; the items keep the reference, for the next
// snapshot.
func (s *saved) settle(ctx context.Context, e *Engine, runID string) error {
	finals := map[string]bool{}
	for _, it := range s.items {
		for _, in := range it.infos {
			if in.final {
				finals[in.runID] = true
			}
		}
	}
	s.events, s.ended, s.finish = nil, nil, ""
	for _, it := range s.items {
		g := it.group
		if g == nil {
			s.events = append(s.events, it.evs...)
			for _, in := range it.infos {
				if in.final {
					s.finish = foldFinish(s.finish, in.finish)
				}
			}
			continue
		}
		s.finish = foldFinish(s.finish, g.Finish)
		if endedAbove(g.Parent+".0", finals) {
			evs, err := e.readSpan(ctx, runID, g.SpanFrom, g.SpanTo, g.member)
			if err != nil {
				return err
			}
			s.events = append(s.events, evs...)
			continue
		}
		s.ended = append(s.ended, agent.EndedRuns{
			Parent: g.Parent, From: g.From, To: g.To, Usage: g.Usage, Cost: g.Cost,
			Replayed: g.Replayed, ReplayedCost: g.ReplayedCost, Load: e.loader(runID, g),
		})
	}
	return nil
}

// loader returns the function that loads the events of one of the runs g
// refers to: the last one's alone from its first checkpoint on (what a
// graph that skips its ended steps reads), else all of them at once, kept
// for the next.
func (e *Engine) loader(runID string, g *rangeJSON) func(ctx context.Context, id string) ([]agent.Event, error) {
	last := g.Parent + "." + strconv.Itoa(g.To)
	var mu sync.Mutex
	var all []agent.Event
	read := false
	return func(ctx context.Context, id string) ([]agent.Event, error) {
		beneath := func(run string) bool { return run == id || strings.HasPrefix(run, id+".") }
		mu.Lock()
		defer mu.Unlock()
		if !read && id == last {
			return e.readSpan(ctx, runID, g.LastFrom, g.SpanTo, beneath)
		}
		if !read {
			evs, err := e.readSpan(ctx, runID, g.SpanFrom, g.SpanTo, g.member)
			if err != nil {
				return nil, err
			}
			all, read = evs, true
		}
		var out []agent.Event
		for _, ev := range all {
			if beneath(ev.RunID) {
				out = append(out, ev)
			}
		}
		return out, nil
	}
}

// readSpan returns the events of run runID's checkpoints from to to whose
// run keep accepts.
func (e *Engine) readSpan(ctx context.Context, runID string, from, to int64, keep func(run string) bool) ([]agent.Event, error) {
	cps, err := checkpoint.ListFrom(ctx, e.store, runID, from)
	if err != nil {
		return nil, readErr(runID, err)
	}
	var out []agent.Event
	for _, cp := range cps {
		if cp.Seq > to {
			break
		}
		if len(cp.Events) == 0 {
			continue
		}
		var evs []agent.Event
		if err := json.Unmarshal(cp.Events, &evs); err != nil {
			return nil, fmt.Errorf("%w: engine: run %s checkpoint %d: events: %w", checkpoint.ErrCorrupt, runID, cp.Seq, err)
		}
		for _, ev := range evs {
			if keep(ev.RunID) {
				out = append(out, ev)
			}
		}
	}
	return out, nil
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
	var rest []restJSON
	var parts []json.RawMessage
	var ended []rangeJSON
	n := 0
	flush := func() {
		if len(parts) > 0 {
			rest[len(rest)-1].Events = joinEvents(parts)
			parts = nil
		}
	}
	for _, it := range items {
		if it.group != nil {
			flush()
			g := *it.group
			g.At = n
			ended = append(ended, g)
			continue
		}
		if len(parts) == 0 || rest[len(rest)-1].Seq != it.seq {
			flush()
			rest = append(rest, restJSON{Seq: it.seq})
		}
		parts = append(parts, it.raw)
		n += len(it.infos)
	}
	flush()
	raw, err := json.Marshal(snapshotJSON{Input: input, Events: rest, Ended: ended, Answers: answers})
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
