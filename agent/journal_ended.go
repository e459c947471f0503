package agent

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"

	"github.com/loomwork/loom/model"
)

// EndedRuns are nested runs that a journal holds as ended without their
// events, given to [Journal.AddEnded]: the nested runs From to To of the
// run Parent (ids Parent.From to Parent.To), each with every run beneath
// it. Their events are loaded only when a resumed run replays one of
// them, so a journal of a long run costs little to build, and nothing is
// loaded for the runs a resumed run skips ([Run.SkipEnded]).
type EndedRuns struct {
	Parent   string
	From, To int
	// Usage and Cost total what the runs' ends report.
	Usage model.Usage
	Cost  float64
	// Replayed and ReplayedCost total the EventUsage events of the runs
	// and the runs beneath them: the model calls a replay counts again.
	Replayed     model.Usage
	ReplayedCost float64
	// Load returns the events of run id (one of them) and of the runs
	// beneath it, in the order they were yielded.
	Load func(ctx context.Context, id string) ([]Event, error)
}

// lazyRuns is an EndedRuns and what was loaded of it.
type lazyRuns struct {
	EndedRuns
	mu     sync.Mutex
	loaded map[string]loadedRun
	skips  groupSkips // what a resumed run skipped and replayed of them
}

type loadedRun struct {
	events []Event
	err    error
}

// AddEnded adds nested runs that ended, without their events.
func (j *Journal) AddEnded(runs ...EndedRuns) {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.lazy == nil {
		j.lazy = map[string][]*lazyRuns{}
	}
	for _, r := range runs {
		if r.Load == nil || r.From < 1 || r.To < r.From {
			continue
		}
		j.lazy[r.Parent] = append(j.lazy[r.Parent], &lazyRuns{EndedRuns: r})
	}
}

// lazyAt returns the added runs that hold the k-th nested run of parent.
func (j *Journal) lazyAt(parent string, k int) *lazyRuns {
	j.mu.Lock()
	defer j.mu.Unlock()
	for _, l := range j.lazy[parent] {
		if l.From <= k && k <= l.To {
			return l
		}
	}
	return nil
}

// endedRecord returns the recorded events of run id and its nested runs
// when the run ended, loading them when they were added without them, and
// whether it ended.
func (j *Journal) endedRecord(ctx context.Context, id string) ([]Event, bool, error) {
	if rec := j.ended(id); rec != nil {
		return rec, true, nil
	}
	i := strings.LastIndexByte(id, '.')
	if i < 0 {
		return nil, false, nil
	}
	k, err := strconv.Atoi(id[i+1:])
	if err != nil {
		return nil, false, nil
	}
	l := j.lazyAt(id[:i], k)
	if l == nil {
		return nil, false, nil
	}
	evs, err := l.load(ctx, id)
	return evs, true, err
}

// load returns the events of run id, loading them once.
func (l *lazyRuns) load(ctx context.Context, id string) ([]Event, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if got, ok := l.loaded[id]; ok {
		return got.events, got.err
	}
	evs, err := l.Load(ctx, id)
	if err != nil {
		err = fmt.Errorf("the journal's record of run %s cannot be read: %w", id, err)
	}
	// As in NewJournal: an interrupted run's end is left out, so the
	// replay carries the end the run reached after its resume.
	kept := evs[:0:0]
	for _, ev := range evs {
		if ev.Kind == EventRunEnd && errors.Is(ev.Err, ErrInterrupted) {
			continue
		}
		ev.Replayed = false
		kept = append(kept, ev)
	}
	if err == nil && !hasEnd(kept, id) {
		err = fmt.Errorf("%w: the journal's record of run %s holds no end", ErrInvalidConfig, id)
	}
	if l.loaded == nil {
		l.loaded = map[string]loadedRun{}
	}
	l.loaded[id] = loadedRun{kept, err}
	return kept, err
}

func hasEnd(evs []Event, id string) bool {
	for i := len(evs) - 1; i >= 0; i-- {
		if evs[i].Kind == EventRunEnd && evs[i].RunID == id {
			return true
		}
	}
	return false
}

// endedTotals returns the usage totals of run id when the journal holds
// its events and it ended: its own (as its end reports them) and those of
// the model calls among its events and its nested runs'.
func (j *Journal) endedTotals(id string) (u model.Usage, cost float64, ru model.Usage, rcost float64, ok bool) {
	rec := j.ended(id)
	if rec == nil {
		return u, 0, ru, 0, false
	}
	for _, ev := range rec {
		switch {
		case ev.Kind == EventUsage:
			ru, rcost = ru.Add(ev.Usage), rcost+ev.Cost
		case ev.Kind == EventRunEnd && ev.RunID == id:
			u, cost = ev.Usage, ev.Cost
		}
	}
	return u, cost, ru, rcost, true
}

// SkipEnded moves a run resumed from a journal past the nested runs it had
// started that ended, from its next one on, as far as the first that did
// not end. It returns the EventRunEnd of the last of them (false when the
// next nested run had not ended, or the run is not resumed); the next
// nested run the body starts gets the id after it. The skipped runs are not
// replayed: their events are not yielded again and hooks do not see
// them, but their usage and cost count toward the run's and the budget's as
// a replay's would. A composition whose nested runs each carry its whole
// progress in their output (a graph's super-steps) resumes from the last
// one this way, in time independent of how many came before. When the last
// one's record cannot be read, the returned end carries the error.
func (r *Run) SkipEnded(ctx context.Context) (Event, bool) {
	j := r.journal
	if j == nil {
		return Event{}, false
	}
	k, last := r.children, ""
	for {
		id := r.ID + "." + strconv.Itoa(k+1)
		if u, cost, ru, rcost, ok := j.endedTotals(id); ok {
			r.usage, r.cost = r.usage.Add(u), r.cost+cost
			r.budget.addReplay(ru, rcost)
			k, last = k+1, id
			continue
		}
		if l := j.lazyAt(r.ID, k+1); l != nil && l.From == k+1 {
			r.usage, r.cost = r.usage.Add(l.Usage), r.cost+l.Cost
			r.budget.addReplay(l.Replayed, l.ReplayedCost)
			k, last = l.To, r.ID+"."+strconv.Itoa(l.To)
			continue
		}
		break
	}
	if last == "" {
		return Event{}, false
	}
	r.children = k
	rec, _, err := j.endedRecord(ctx, last)
	if err != nil {
		return Event{Kind: EventRunEnd, RunID: last, ParentID: r.ID, Err: err}, true
	}
	for i := len(rec) - 1; i >= 0; i-- {
		if rec[i].Kind == EventRunEnd && rec[i].RunID == last {
			return rec[i], true
		}
	}
	return Event{Kind: EventRunEnd, RunID: last, ParentID: r.ID, Err: fmt.Errorf("%w: the journal's record of run %s holds no end", ErrInvalidConfig, last)}, true
}
