package engine

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"

	"github.com/loomwork/loom/agent"
	"github.com/loomwork/loom/model"
)

// item is one entry of a run's journal in order: events (raw, one JSON
// event or an array of them, with what grouping needs of each), or the
// events of a nested run that ended, grouped and still encoded.
type item struct {
	raw   json.RawMessage
	infos []evInfo
	evs   []agent.Event // decoded, when read back from a store
	group *endedJSON
}

// split returns items with every item of events holding one event.
func split(items []item) ([]item, error) {
	out := make([]item, 0, len(items))
	for _, it := range items {
		if it.group != nil || len(it.infos) <= 1 {
			if it.group != nil || len(it.infos) == 1 {
				out = append(out, it)
			}
			continue
		}
		var raws []json.RawMessage
		if err := json.Unmarshal(it.raw, &raws); err != nil {
			return nil, err
		}
		if len(raws) != len(it.infos) {
			return nil, errors.New("engine: a checkpoint's events do not match what was recorded")
		}
		for i, r := range raws {
			one := item{raw: r, infos: it.infos[i : i+1]}
			if it.evs != nil {
				one.evs = it.evs[i : i+1]
			}
			out = append(out, one)
		}
	}
	return out, nil
}

// evInfo is what the journal's grouping reads of an event.
type evInfo struct {
	runID  string
	kind   agent.EventKind
	final  bool // a run's end that is not an interruption
	usage  model.Usage
	cost   float64
	finish model.FinishReason
}

func infoOf(ev agent.Event) evInfo {
	in := evInfo{runID: ev.RunID, kind: ev.Kind, usage: ev.Usage, cost: ev.Cost}
	if ev.Kind == agent.EventRunEnd {
		in.final = !errors.Is(ev.Err, agent.ErrInterrupted)
		if in.final {
			in.finish = ev.FinishReason
		}
	}
	return in
}

// endedJSON is a nested run that ended, as a snapshot holds it: its
// events and its nested runs' (one JSON array) and the totals a resume
// that skips it needs. At is how many ungrouped events of the snapshot
// precede it.
type endedJSON struct {
	At           int                `json:"at"`
	ID           string             `json:"id"`
	Events       json.RawMessage    `json:"events"`
	Usage        model.Usage        `json:"usage,omitzero"`
	Cost         float64            `json:"cost,omitempty"`
	Replayed     model.Usage        `json:"replayed,omitzero"`
	ReplayedCost float64            `json:"replayed_cost,omitempty"`
	Finish       model.FinishReason `json:"finish,omitempty"` // its events' RunEnd finish reasons, folded
}

func (g *endedJSON) endedRun() agent.EndedRun {
	return agent.EndedRun{ID: g.ID, Events: g.Events, Usage: g.Usage, Cost: g.Cost, Replayed: g.Replayed, ReplayedCost: g.ReplayedCost}
}

// foldFinish is the engine's rule for a run's finish reason over the
// events it sees: the last one given, except that FinishLength stays once
// seen (see Result.FinishReason).
func foldFinish(cur, next model.FinishReason) model.FinishReason {
	if next == "" || cur == model.FinishLength {
		return cur
	}
	return next
}

// groupEnded returns items with every nested run that ended, and whose
// parent has not, as one group holding its events and its nested runs'
// (groups made before included), at the place of its first event. Order is
// kept: a group's events are in the order they were recorded.
func groupEnded(items []item) ([]item, error) {
	ended := map[string]bool{}
	for _, it := range items {
		for _, in := range it.infos {
			if in.final {
				ended[in.runID] = true
			}
		}
	}
	if len(ended) == 0 {
		return items, nil
	}
	items, err := split(items)
	if err != nil {
		return nil, err
	}
	out := make([]item, 0, len(items))
	at := map[string]int{}
	parts := map[string][]json.RawMessage{}
	for _, it := range items {
		var in evInfo
		if it.group == nil {
			in = it.infos[0]
		}
		id := in.runID
		if it.group != nil {
			id = it.group.ID
		}
		top := outermostEnded(id, ended, it.group != nil)
		if top == "" {
			out = append(out, it)
			continue
		}
		k, ok := at[top]
		if !ok {
			k = len(out)
			at[top] = k
			out = append(out, item{group: &endedJSON{ID: top}})
		}
		g := out[k].group
		if it.group != nil {
			parts[top] = append(parts[top], it.group.Events)
			g.Replayed, g.ReplayedCost = g.Replayed.Add(it.group.Replayed), g.ReplayedCost+it.group.ReplayedCost
			g.Finish = foldFinish(g.Finish, it.group.Finish)
			continue
		}
		parts[top] = append(parts[top], it.raw)
		switch {
		case in.kind == agent.EventUsage:
			g.Replayed, g.ReplayedCost = g.Replayed.Add(in.usage), g.ReplayedCost+in.cost
		case in.final:
			g.Finish = foldFinish(g.Finish, in.finish)
			if in.runID == top {
				g.Usage, g.Cost = in.usage, in.cost
			}
		}
	}
	for id, k := range at {
		out[k].group.Events = joinEvents(parts[id])
	}
	return out, nil
}

// outermostEnded returns the outermost of id and the runs above it that
// ended, or "". A group (grouped) is itself ended; only a run above it
// can take it in.
func outermostEnded(id string, ended map[string]bool, grouped bool) string {
	for i := 0; ; {
		j := strings.IndexByte(id[i:], '.')
		p := id
		if j >= 0 {
			p = id[:i+j]
		}
		if j < 0 {
			if !grouped && ended[p] {
				return p
			}
			return ""
		}
		if ended[p] {
			return p
		}
		i += j + 1
	}
}

// joinEvents joins JSON values and JSON arrays of values (null and empty
// arrays allowed) into one JSON array.
func joinEvents(parts []json.RawMessage) json.RawMessage {
	n := 2
	for _, p := range parts {
		n += len(p) + 1
	}
	out := make([]byte, 0, n)
	out = append(out, '[')
	for _, p := range parts {
		p = bytes.TrimSpace(p)
		if len(p) > 0 && p[0] == '[' {
			p = bytes.TrimSpace(p[1 : len(p)-1])
		}
		if len(p) == 0 || string(p) == "null" {
			continue
		}
		if len(out) > 1 {
			out = append(out, ',')
		}
		out = append(out, p...)
	}
	return append(out, ']')
}
