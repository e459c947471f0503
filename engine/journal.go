package engine

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/loomwork/loom/agent"
	"github.com/loomwork/loom/model"
)

// item is one entry of a run's journal in order: events (raw, one JSON
// event or an array of them, with what grouping needs of each) saved with
// checkpoint seq, or nested runs that ended, kept as a reference to the
// checkpoints that hold their events.
type item struct {
	seq   int64
	raw   json.RawMessage
	infos []evInfo
	evs   []agent.Event // decoded, when read back from a store
	group *rangeJSON
	// inSnap marks events the latest snapshot holds: the next snapshot
	// refers to it for them instead of holding them again.
	inSnap bool
}

// split returns items with every item of events holding one event.
func split(items []item) ([]item, error) {
	out := make([]item, 0, len(items))
	for _, it := range items {
		if it.group != nil || len(it.infos) == 1 {
			out = append(out, it)
			continue
		}
		if len(it.infos) == 0 {
			continue
		}
		raws, err := splitArray(it.raw)
		if err != nil {
			return nil, err
		}
		if len(raws) != len(it.infos) {
			return nil, errors.New("engine: a checkpoint's events do not match what was recorded")
		}
		for i, r := range raws {
			one := item{seq: it.seq, raw: r, infos: it.infos[i : i+1], inSnap: it.inSnap}
			if it.evs != nil {
				one.evs = it.evs[i : i+1]
			}
			out = append(out, one)
		}
	}
	return out, nil
}

// splitArray returns the elements of a JSON array as slices of raw, without
// copying them. raw is valid JSON (the recorder encoded it, or a store
// checked it).
func splitArray(raw json.RawMessage) ([]json.RawMessage, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) < 2 || raw[0] != '[' || raw[len(raw)-1] != ']' {
		return nil, errors.New("engine: a checkpoint's events are not a JSON array")
	}
	var out []json.RawMessage
	depth, start, inString, escaped := 0, -1, false, false
	for i := 1; i < len(raw)-1; i++ {
		c := raw[i]
		switch {
		case inString:
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
			continue
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			continue
		case c == ',' && depth == 0:
			out = append(out, bytes.TrimSpace(raw[start:i]))
			start = -1
			continue
		}
		if start < 0 {
			start = i
		}
		switch c {
		case '"':
			inString = true
		case '{', '[':
			depth++
		case '}', ']':
			depth--
		}
	}
	if start >= 0 {
		out = append(out, bytes.TrimSpace(raw[start:len(raw)-1]))
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

// rangeJSON is what a snapshot holds of nested runs that ended: the runs
// From to To of run Parent, the checkpoints that hold their events and the
// totals a resume that skips them needs. At is how many ungrouped events
// of the snapshot precede them.
type rangeJSON struct {
	At     int    `json:"at"`
	Parent string `json:"parent"`
	From   int    `json:"from"`
	To     int    `json:"to"`
	// SpanFrom and SpanTo bound the checkpoints that hold their events;
	// LastFrom is the first that holds the last one's.
	SpanFrom     int64              `json:"span_from"`
	SpanTo       int64              `json:"span_to"`
	LastFrom     int64              `json:"last_from"`
	Usage        model.Usage        `json:"usage,omitzero"`
	Cost         float64            `json:"cost,omitempty"`
	Replayed     model.Usage        `json:"replayed,omitzero"`
	ReplayedCost float64            `json:"replayed_cost,omitempty"`
	Finish       model.FinishReason `json:"finish,omitempty"` // their events' RunEnd finish reasons, folded
}

// member reports whether run id is one of the runs or beneath one.
func (g *rangeJSON) member(id string) bool {
	rest, ok := strings.CutPrefix(id, g.Parent+".")
	if !ok {
		return false
	}
	if i := strings.IndexByte(rest, '.'); i >= 0 {
		rest = rest[:i]
	}
	k, err := strconv.Atoi(rest)
	return err == nil && g.From <= k && k <= g.To
}

// widen makes g's checkpoints cover seqs from to to.
func (g *rangeJSON) widen(from, to int64) {
	if g.SpanFrom == 0 || from < g.SpanFrom {
		g.SpanFrom = from
	}
	g.SpanTo = max(g.SpanTo, to)
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
// parent has not, taken out as a reference (with the runs beneath it,
// references made before included), at the place of its first event, and
// consecutive runs of one parent merged into one reference.
func groupEnded(items []item) ([]item, error) {
	ended := map[string]bool{}
	for _, it := range items {
		for _, in := range it.infos {
			if in.final {
				ended[in.runID] = true
			}
		}
	}
	if len(ended) > 0 {
		var err error
		if items, err = split(items); err != nil {
			return nil, err
		}
	}
	out := make([]item, 0, len(items))
	at := map[string]int{}
	for _, it := range items {
		var top string
		if it.group != nil {
			top = outermostEnded(it.group.Parent+"."+strconv.Itoa(it.group.From), ended, true)
		} else {
			top = outermostEnded(it.infos[0].runID, ended, false)
		}
		if top == "" {
			out = append(out, it)
			continue
		}
		k, ok := at[top]
		if !ok {
			i := strings.LastIndexByte(top, '.')
			n, err := strconv.Atoi(top[i+1:])
			if i < 0 || err != nil {
				return nil, fmt.Errorf("engine: run id %q is not a nested run's", top)
			}
			k = len(out)
			at[top] = k
			out = append(out, item{group: &rangeJSON{Parent: top[:i], From: n, To: n}})
		}
		g := out[k].group
		if it.group != nil {
			g.widen(it.group.SpanFrom, it.group.SpanTo)
			g.Replayed, g.ReplayedCost = g.Replayed.Add(it.group.Replayed), g.ReplayedCost+it.group.ReplayedCost
			g.Finish = foldFinish(g.Finish, it.group.Finish)
			continue
		}
		in := it.infos[0]
		g.widen(it.seq, it.seq)
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
	for _, k := range at {
		out[k].group.LastFrom = out[k].group.SpanFrom
	}
	return mergeRanges(out), nil
}

// mergeRanges merges the references to consecutive nested runs of one
// parent, in place of the first.
func mergeRanges(items []item) []item {
	byParent := map[string][]int{}
	for i, it := range items {
		if it.group != nil {
			byParent[it.group.Parent] = append(byParent[it.group.Parent], i)
		}
	}
	gone := map[int]bool{}
	for _, idx := range byParent {
		if len(idx) < 2 {
			continue
		}
		slices.SortFunc(idx, func(a, b int) int { return items[a].group.From - items[b].group.From })
		head := idx[0]
		for _, i := range idx[1:] {
			h, g := items[head].group, items[i].group
			if h.To+1 != g.From {
				head = i
				continue
			}
			m := *h
			m.To, m.LastFrom = g.To, g.LastFrom
			m.widen(g.SpanFrom, g.SpanTo)
			m.Usage, m.Cost = m.Usage.Add(g.Usage), m.Cost+g.Cost
			m.Replayed, m.ReplayedCost = m.Replayed.Add(g.Replayed), m.ReplayedCost+g.ReplayedCost
			m.Finish = foldFinish(m.Finish, g.Finish)
			keep, drop := head, i
			if i < head {
				keep, drop = i, head
			}
			items[keep].group, gone[drop], head = &m, true, keep
		}
	}
	if len(gone) == 0 {
		return items
	}
	out := items[:0:0]
	for i, it := range items {
		if !gone[i] {
			out = append(out, it)
		}
	}
	return out
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
