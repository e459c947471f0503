package agent

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"

	"github.com/loomwork/loom/model"
)

// EndedRun is a nested run that a journal holds as ended, given to
// [Journal.AddEnded] with its events still encoded: they are decoded only
// when a resumed run replays it, so a journal of a long run costs little
// to build when the resumed run skips what ended ([Run.SkipEnded]).
type EndedRun struct {
	// ID is the run's id.
	ID string
	// Events are the run's events and its nested runs', in the order they
	// were yielded, as a JSON array; the run's own EventRunEnd is among
	// them.
	Events json.RawMessage
	// Usage and Cost are the run's totals, as its EventRunEnd reports
	// them.
	Usage model.Usage
	Cost  float64
	// Replayed and ReplayedCost total the EventUsage events among Events:
	// the model calls a replay of the run counts again.
	Replayed     model.Usage
	ReplayedCost float64
}

// lazyRun is an EndedRun and, once read, its events.
type lazyRun struct {
	EndedRun
	events []Event
	err    error
	read   bool
}

// AddEnded adds runs that ended, with their events still encoded. A run
// the journal already holds is left as it is.
func (j *Journal) AddEnded(runs ...EndedRun) {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.lazy == nil {
		j.lazy = map[string]*lazyRun{}
	}
	for _, r := range runs {
		if _, ok := j.runs[r.ID]; ok {
			continue
		}
		j.lazy[r.ID] = &lazyRun{EndedRun: r}
	}
}

// endedRecord returns the recorded events of run id and its nested runs
// when the run ended, decoding them when they were added encoded, and
// whether it ended.
func (j *Journal) endedRecord(id string) ([]Event, bool, error) {
	if rec := j.ended(id); rec != nil {
		return rec, true, nil
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	l := j.lazy[id]
	if l == nil {
		return nil, false, nil
	}
	if !l.read {
		l.read = true
		var evs []Event
		if err := json.Unmarshal(l.Events, &evs); err != nil {
			l.err = fmt.Errorf("%w: the journal's record of run %s cannot be read: %w", ErrInvalidConfig, id, err)
		}
		// As in NewJournal: an interrupted run's end is left out, so the
		// replay carries the end the run reached after its resume.
		l.events = evs[:0]
		for _, ev := range evs {
			if ev.Kind == EventRunEnd && errors.Is(ev.Err, ErrInterrupted) {
				continue
			}
			ev.Replayed = false
			l.events = append(l.events, ev)
		}
	}
	return l.events, true, l.err
}

// endedTotals returns the usage totals of run id when the journal holds
// it as ended: its own (as its end reports them) and those of the model
// calls among its events.
func (j *Journal) endedTotals(id string) (u model.Usage, cost float64, ru model.Usage, rcost float64, ok bool) {
	j.mu.Lock()
	l := j.lazy[id]
	j.mu.Unlock()
	if l != nil {
		return l.Usage, l.Cost, l.Replayed, l.ReplayedCost, true
	}
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
// replayed: their events are not yielded again and observers do not see
// them, but their usage and cost count toward the run's and the budget's as
// a replay's would. A composition whose nested runs each carry its whole
// progress in their output (a graph's super-steps) resumes from the last
// one this way, in time independent of how many came before.
func (r *Run) SkipEnded() (Event, bool) {
	j := r.journal
	if j == nil {
		return Event{}, false
	}
	k, last := r.children, ""
	for {
		id := r.ID + "." + strconv.Itoa(k+1)
		u, cost, ru, rcost, ok := j.endedTotals(id)
		if !ok {
			break
		}
		r.usage, r.cost = r.usage.Add(u), r.cost+cost
		r.budget.addReplay(ru, rcost)
		k, last = k+1, id
	}
	if last == "" {
		return Event{}, false
	}
	r.children = k
	rec, _, err := j.endedRecord(last)
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
