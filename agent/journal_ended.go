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

// lazyRuns are nested runs that a journal holds as ended without their
// events (agentrt.EndedRuns): the nested runs from to to of their parent,
// each with every run beneath it, their totals (what their ends report, and
// the model calls a replay counts again), how to load the events of one of
// them, and what was loaded of them.
type lazyRuns struct {
	from, to int
	totals   runTotals
	fetch    func(ctx context.Context, id string) ([]Event, error)
	mu       sync.Mutex
	loaded   map[string]loadedRun
	skips    groupSkips // what a resumed run skipped and replayed of them
}

type loadedRun struct {
	events []Event
	err    error
}

// addEnded adds the nested runs from to to of parent, which ended, without
// their events.
func (j *journal) addEnded(parent string, from, to int, totals runTotals, load func(context.Context, string) ([]Event, error)) {
	if load == nil || from < 1 || to < from {
		return
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.lazy == nil {
		j.lazy = map[string][]*lazyRuns{}
	}
	j.lazy[parent] = append(j.lazy[parent], &lazyRuns{from: from, to: to, totals: totals, fetch: load})
}

// lazyAt returns the added runs that hold the k-th nested run of parent.
func (j *journal) lazyAt(parent string, k int) *lazyRuns {
	j.mu.Lock()
	defer j.mu.Unlock()
	for _, l := range j.lazy[parent] {
		if l.from <= k && k <= l.to {
			return l
		}
	}
	return nil
}

// endedRecord returns the recorded events of run id and its nested runs
// when the run ended, loading them when they were added without them, and
// whether it ended.
func (j *journal) endedRecord(ctx context.Context, id string) ([]Event, bool, error) {
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
	evs, err := l.fetch(ctx, id)
	if err != nil {
		err = fmt.Errorf("the journal's record of run %s cannot be read: %w", id, err)
	}
	// As in newJournal: an interrupted run's end is left out, so the
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
func (j *journal) endedTotals(id string) (u model.Usage, cost float64, ru model.Usage, rcost float64, ok bool) {
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

// skipEnded moves a run resumed from a journal past the nested runs it
// had started that ended (agentrt.SkipEnded, which documents it).
func (r *Run) skipEnded(ctx context.Context) (Event, bool) {
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
		if l := j.lazyAt(r.ID, k+1); l != nil && l.from == k+1 {
			r.count(l.totals)
			k, last = l.to, r.ID+"."+strconv.Itoa(l.to)
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
