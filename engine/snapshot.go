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

	"github.com/loomwork/loom/agent/agentrt"
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
// ([agentrt.SkipEnded]), as a graph skips its ended steps; consecutive
// ended runs of one parent are one reference, so a graph's snapshot does
// not grow with its steps.
//
// A snapshot may hold only what is new since the run's previous one (Base):
// the events of the runs that had not ended there, less those of the runs
// that ended since, come before Events, and its answers with Answers. So a
// run that waits M times does not save its whole conversation M times: an
// AI root's snapshots total O(N + M) bytes, not O(N·M). Chain bounds the
// chain a resume reads: a snapshot is whole when its events are few
// (chainFrom), and again when the chain would grow past maxChain or its
// new events past the last whole one's.
type snapshotJSON struct {
	Input   json.RawMessage            `json:"input,omitempty"`
	Events  []restJSON                 `json:"events,omitempty"`
	Ended   []rangeJSON                `json:"ended,omitempty"`
	Answers map[string]json.RawMessage `json:"answers,omitempty"`
	Base    int64                      `json:"base,omitempty"`
	Chain   chainJSON                  `json:"chain,omitzero"`
}

// chainJSON is where a snapshot stands in its chain.
type chainJSON struct {
	Depth int   `json:"depth,omitempty"` // snapshots since the last whole one
	Whole int64 `json:"whole,omitempty"` // bytes of the last whole one's events
	Delta int64 `json:"delta,omitempty"` // bytes of the events of those since it
}

// maxChain bounds the snapshots a resume reads: the head's and those it
// refers to.
const maxChain = 32

// chainFrom is the size of the events of unended runs below which a
// snapshot is whole: writing them again costs less than a read more on
// resume (a graph's are its start and its waiting step).
const chainFrom = 4096

// snapBase is the latest snapshot of a run, for the next to refer to: its
// Seq, its place in its chain and every answer it holds.
type snapBase struct {
	seq     int64
	chain   chainJSON
	answers map[string]json.RawMessage
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
	items   []item    // the journal in order, as read
	snapAt  int64     // the Seq of the latest checkpoint holding a snapshot, or 0
	base    *snapBase // the snapshot the items' inSnap events are in, or nil

	// From items, by settle: the decoded events (those of grouped runs
	// left out), the grouped runs, and the finish reason over them all.
	events []agent.Event
	ended  []agentrt.EndedRuns
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
		if s := e.fromSnapshot(ctx, runID, head, st); s != nil {
			return s, s.settle(ctx, e, runID)
		}
	} else if st.SnapshotAt > 0 && st.SnapshotAt < head.Seq {
		cps, err := checkpoint.ListFrom(ctx, e.store, runID, st.SnapshotAt)
		if err != nil {
			return nil, readErr(runID, err)
		}
		if s := e.fromTail(ctx, runID, cps, st.SnapshotAt); s != nil {
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
func (e *Engine) fromTail(ctx context.Context, runID string, cps []checkpoint.Checkpoint, at int64) *saved {
	if len(cps) == 0 || cps[0].Seq != at {
		return nil
	}
	st, err := decodeState(runID, cps[0])
	if err != nil || st.Snapshot == nil {
		return nil
	}
	s := e.fromSnapshot(ctx, runID, cps[0], st)
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

// fromSnapshot returns the journal that cp's snapshot holds (with the
// snapshots it refers to), or nil when it cannot be read.
func (e *Engine) fromSnapshot(ctx context.Context, runID string, cp checkpoint.Checkpoint, st RunState) *saved {
	var sn snapshotJSON
	if err := json.Unmarshal(st.Snapshot, &sn); err != nil {
		return nil
	}
	rest, answers, ok := e.chainRest(ctx, runID, sn, 0)
	if !ok {
		return nil
	}
	// The events of runs that ended since an earlier snapshot of the chain
	// are in the references now.
	grouped := func(run string) bool {
		for i := range sn.Ended {
			if sn.Ended[i].member(run) {
				return true
			}
		}
		return false
	}
	items := make([]item, 0, len(rest)+len(sn.Ended))
	g, n := 0, 0
	for i := 0; i <= len(rest); i++ {
		for ; g < len(sn.Ended) && (sn.Ended[g].At <= n || i == len(rest)); g++ {
			items = append(items, item{group: &sn.Ended[g]})
		}
		if i == len(rest) {
			break
		}
		r := rest[i]
		var evs []agent.Event
		if err := json.Unmarshal(r.Events, &evs); err != nil {
			return nil
		}
		raw := r.Events
		if sn.Base > 0 && len(sn.Ended) > 0 {
			kept := evs[:0:0]
			for _, ev := range evs {
				if !grouped(ev.RunID) {
					kept = append(kept, ev)
				}
			}
			if len(kept) == 0 {
				continue
			}
			if len(kept) < len(evs) {
				var err error
				if raw, err = json.Marshal(kept); err != nil {
					return nil
				}
				evs = kept
			}
		}
		items = append(items, item{seq: r.Seq, raw: raw, infos: infosOf(evs), evs: evs, inSnap: true})
		n += len(evs)
	}
	if answers == nil {
		answers = map[string]json.RawMessage{}
	}
	return &saved{
		head:    cp,
		start:   RunState{Format: RunFormat, Agent: st.Agent, Input: sn.Input, Status: "running"},
		answers: answers,
		items:   items,
		snapAt:  cp.Seq,
		base:    &snapBase{seq: cp.Seq, chain: sn.Chain, answers: maps.Clone(answers)},
	}
}

// chainRest returns the events a snapshot holds of runs that had not
// ended, those of the snapshots it refers to first, and every answer
// they hold; false when one cannot be read.
func (e *Engine) chainRest(ctx context.Context, runID string, sn snapshotJSON, depth int) ([]restJSON, map[string]json.RawMessage, bool) {
	if sn.Base == 0 {
		return sn.Events, maps.Clone(sn.Answers), true
	}
	if depth >= 2*maxChain {
		return nil, nil, false
	}
	cp, err := e.store.Get(ctx, runID, sn.Base)
	if err != nil {
		return nil, nil, false
	}
	st, err := decodeState(runID, cp)
	if err != nil || st.Snapshot == nil {
		return nil, nil, false
	}
	var base snapshotJSON
	if err := json.Unmarshal(st.Snapshot, &base); err != nil {
		return nil, nil, false
	}
	rest, answers, ok := e.chainRest(ctx, runID, base, depth+1)
	if !ok {
		return nil, nil, false
	}
	if answers == nil {
		answers = map[string]json.RawMessage{}
	}
	maps.Copy(answers, sn.Answers)
	return append(rest, sn.Events...), answers, true
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
		// Read with the checkpoints, the journal's events are not marked
		// as the snapshot's: the next snapshot is whole.
		s.snapAt, s.base = cp.Seq, nil
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
		s.ended = append(s.ended, agentrt.EndedRuns{
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

// pointReads is the longest span of checkpoints readSpan reads one by
// one rather than with the rest of the line.
const pointReads = 4

// readSpan returns the events of run runID's checkpoints from to to whose
// run keep accepts.
func (e *Engine) readSpan(ctx context.Context, runID string, from, to int64, keep func(run string) bool) ([]agent.Event, error) {
	var cps []checkpoint.Checkpoint
	if to-from < pointReads {
		// A short span (a graph's last step) is read checkpoint by
		// checkpoint, so that the line after it, the head's snapshot
		// included, is not read too.
		for seq := from; seq <= to; seq++ {
			cp, err := e.store.Get(ctx, runID, seq)
			if err != nil {
				return nil, readErr(runID, err)
			}
			cps = append(cps, cp)
		}
	} else {
		var err error
		if cps, err = checkpoint.ListFrom(ctx, e.store, runID, from); err != nil {
			return nil, readErr(runID, err)
		}
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
// the run's input and answers, the journal's items grouped as the
// snapshot holds them (its events marked inSnap), and where it stands in
// its chain. With base (the run's latest snapshot, which holds the items
// marked inSnap) it holds only what is new since, unless the chain is
// due to be whole again.
func makeSnapshot(items []item, input json.RawMessage, answers map[string]json.RawMessage, base *snapBase) (json.RawMessage, []item, *snapBase, error) {
	items, err := groupEnded(items)
	if err != nil {
		return nil, nil, nil, err
	}
	var whole, delta int64
	prefix := true // the events base holds come first
	for _, it := range items {
		if it.group != nil {
			continue
		}
		whole += int64(len(it.raw))
		switch {
		case !it.inSnap:
			delta += int64(len(it.raw))
		case delta > 0:
			prefix = false
		}
	}
	chain := chainJSON{Whole: whole}
	if base != nil && prefix && whole > chainFrom && base.chain.Depth < maxChain-1 && base.chain.Delta+delta <= base.chain.Whole {
		chain = chainJSON{Depth: base.chain.Depth + 1, Whole: base.chain.Whole, Delta: base.chain.Delta + delta}
	} else {
		base = nil
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
	for i, it := range items {
		if it.group != nil {
			flush()
			g := *it.group
			g.At = n
			ended = append(ended, g)
			continue
		}
		n += len(it.infos)
		items[i].inSnap = true
		if base != nil && it.inSnap {
			continue
		}
		if len(parts) == 0 || rest[len(rest)-1].Seq != it.seq {
			flush()
			rest = append(rest, restJSON{Seq: it.seq})
		}
		parts = append(parts, it.raw)
	}
	flush()
	sn := snapshotJSON{Input: input, Events: rest, Ended: ended, Answers: answers, Chain: chain}
	if base != nil {
		sn.Base, sn.Answers = base.seq, newAnswers(answers, base.answers)
	}
	raw, err := json.Marshal(sn)
	if err != nil {
		return nil, nil, nil, err
	}
	return raw, items, &snapBase{chain: chain, answers: answers}, nil
}

// newAnswers returns the answers of all that old does not hold.
func newAnswers(all, old map[string]json.RawMessage) map[string]json.RawMessage {
	var out map[string]json.RawMessage
	for id, a := range all {
		if _, ok := old[id]; ok {
			continue
		}
		if out == nil {
			out = map[string]json.RawMessage{}
		}
		out[id] = a
	}
	return out
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
