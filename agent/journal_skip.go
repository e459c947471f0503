package agent

import (
	"context"
	"strconv"
	"strings"

	"github.com/loomwork/loom/model"
)

// runTotals are what a nested run adds to its parent's usage and to the
// budget: its end's totals and the model calls among its events and its
// nested runs' (see lazyRuns).
type runTotals struct {
	usage    model.Usage
	cost     float64
	replayed model.Usage
	rcost    float64
}

func (t runTotals) sub(o runTotals) runTotals {
	return runTotals{t.usage.Sub(o.usage), t.cost - o.cost, t.replayed.Sub(o.replayed), t.rcost - o.rcost}
}

// totalsOf returns the totals of run id from its recorded events.
func totalsOf(rec []Event, id string) runTotals {
	var t runTotals
	for _, ev := range rec {
		switch {
		case ev.Kind == EventUsage:
			t.replayed, t.rcost = t.replayed.Add(ev.Usage), t.rcost+ev.Cost
		case ev.Kind == EventRunEnd && ev.RunID == id:
			t.usage, t.cost = ev.Usage, ev.Cost
		}
	}
	return t
}

// count adds t to the run's usage and to the budget, as a replay of the
// runs t totals would.
func (r *Run) count(t runTotals) {
	r.usage, r.cost = r.usage.Add(t.usage), r.cost+t.cost
	r.budget.addReplay(t.replayed, t.rcost)
}

// groupSkips is what a run skipped of one group of ended runs added
// without their events (journal.addEnded), and what it replayed of it.
// Only the group's totals are known, so the skipped runs are counted once
// every run of the group was skipped or replayed: the totals less those
// of the runs replayed (which their replay counted).
type groupSkips struct {
	skipped  []string
	replayed map[string]runTotals
}

// noteReplayed records that run id, replayed from rec, is one of a group
// of ended runs added without their events: its totals are counted by its
// replay, not by the group's.
func (j *journal) noteReplayed(id string, rec []Event) {
	l, _ := j.groupOf(id)
	if l == nil {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.skips.replayed == nil {
		l.skips.replayed = map[string]runTotals{}
	}
	l.skips.replayed[id] = totalsOf(rec, id)
}

// groupOf returns the group of ended runs added without their events
// that holds nested run id, and its place in its parent.
func (j *journal) groupOf(id string) (*lazyRuns, int) {
	i := strings.LastIndexByte(id, '.')
	if i < 0 {
		return nil, 0
	}
	k, err := strconv.Atoi(id[i+1:])
	if err != nil {
		return nil, 0
	}
	return j.lazyAt(id[:i], k), k
}

// skipChild moves a resumed run past its nested run id when the journal
// holds it as ended, without loading or replaying it, and reports whether
// it did. Its usage and cost count toward the run's and the budget's: at
// once when the journal holds its events, else when [Run.settleSkips]
// finds its group accounted for. It runs on the run's goroutine.
func (r *Run) skipChild(id string) bool {
	j := r.journal
	if j == nil {
		return false
	}
	if rec := j.ended(id); rec != nil {
		r.count(totalsOf(rec, id))
		return true
	}
	l, _ := j.groupOf(id)
	if l == nil {
		return false
	}
	l.mu.Lock()
	l.skips.skipped = append(l.skips.skipped, id)
	l.mu.Unlock()
	for _, p := range r.skips {
		if p == l {
			return true
		}
	}
	r.skips = append(r.skips, l)
	return true
}

// settleSkips counts the runs skipped of each group whose every run was
// skipped or replayed. With final (the run's body ends) it counts the
// rest too, from their loaded records: a run that went past its record
// does not come back to the group.
func (r *Run) settleSkips(ctx context.Context, final bool) error {
	keep := r.skips[:0]
	for _, l := range r.skips {
		l.mu.Lock()
		n := l.to - l.from + 1
		done := len(l.skips.skipped)+len(l.skips.replayed) >= n
		var t runTotals
		if done {
			t = l.totals
			for _, rt := range l.skips.replayed {
				t = t.sub(rt)
			}
		}
		skipped := l.skips.skipped
		l.mu.Unlock()
		switch {
		case done:
			r.count(t)
		case final:
			for _, id := range skipped {
				rec, err := l.load(ctx, id)
				if err != nil {
					return err
				}
				r.count(totalsOf(rec, id))
			}
		default:
			keep = append(keep, l)
		}
	}
	r.skips = keep
	return nil
}

// recordedResults returns, for each of calls, the result the run's record
// sent back to the model when the call's tool run ended and the resumed
// run can take that result without running or replaying the tool: the
// run is still on its record, which holds the result next, after the
// calls' EventToolCall events; nil for the others. Results that report a
// failure are taken only when failures are not the run's (keepErrors),
// since then the tool's error itself matters.
func (r *Run) recordedResults(calls []model.ToolCall, keepErrors bool) []*model.ToolResult {
	l := r.replay
	if r.journal == nil || l == nil || l.live {
		return nil
	}
	seen := make(map[string]bool, len(calls))
	for _, c := range calls {
		if seen[c.ID] {
			return nil // results cannot be told apart by call id
		}
		seen[c.ID] = true
	}
	var out []*model.ToolResult
	for i := l.cursor; i < len(l.own) && l.own[i].Kind == EventToolResult; i++ {
		res := l.own[i].ToolResult
		if res == nil || !seen[res.CallID] || (res.IsError && !keepErrors) {
			continue
		}
		if out == nil {
			out = make([]*model.ToolResult, len(calls))
		}
		for k, c := range calls {
			if c.ID == res.CallID {
				out[k] = res
			}
		}
	}
	return out
}
