package agent

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
)

// Journal is the record of a run that stopped before its end (interrupted,
// or its process died), from which the run is resumed without repeating
// work. A resumed run starts again from its root with the same ids, and:
//
//   - a nested run whose end the journal holds is not run again: its
//     recorded events are yielded again, marked Replayed, and its recorded
//     output (or error) is what its caller gets;
//   - an AI's tool run that ended, and whose result the AI's own record
//     holds, is skipped: the AI takes the recorded result, and the tool
//     run's events are neither read nor yielded again (its usage and cost
//     still count), so a resume reads what came after, as a graph skips
//     its ended steps ([Run.SkipEnded]);
//   - a model call the journal holds is not made again: its recorded text,
//     usage and response are replayed;
//   - a question the answers cover is answered (see [Ask]);
//   - everything else runs.
//
// Engines build a journal from the events their checkpoints saved; see
// [NewJournal]. A Journal is used by one resumed run at a time.
type Journal struct {
	events  []Event
	runs    map[string]*runLog
	subtree map[string][]int // run id -> indexes in events of the run's and its nested runs' events
	answers map[string]json.RawMessage
	rootID  string
	lazy    map[string][]*lazyRuns // parent id -> ended runs added without their events (AddEnded)

	mu sync.Mutex
}

// runLog is what the journal holds for one run.
type runLog struct {
	own       []Event // the run's own events, in order
	ended     bool    // the run ended for good (not by an interruption)
	responses []int   // indexes in own of its EventModelResponse events
	cursor    int     // how many own events the resumed run has matched
	live      bool    // the resumed run went past its record
	maxSeq    int64
}

type journalKey struct{}

// NewJournal returns the journal of the recorded events (in the order they
// were yielded) with answers to the run's questions, keyed by question id.
// An interrupted run's end is left out, so the run continues past it.
func NewJournal(events []Event, answers map[string]json.RawMessage) *Journal {
	j := &Journal{events: make([]Event, 0, len(events)), runs: make(map[string]*runLog), subtree: make(map[string][]int), answers: answers}
	for _, ev := range events {
		if ev.Kind == EventRunEnd && errors.Is(ev.Err, ErrInterrupted) {
			continue
		}
		if ev.Kind == EventRunStart && ev.ParentID == "" && j.rootID == "" {
			j.rootID = ev.RunID
		}
		ev.Replayed = false
		// Index the event under its run and every run above it, so that
		// replaying an ended run reads its own events only, however long
		// the journal.
		for id := ev.RunID; id != ""; {
			j.subtree[id] = append(j.subtree[id], len(j.events))
			i := strings.LastIndexByte(id, '.')
			if i < 0 {
				break
			}
			id = id[:i]
		}
		j.events = append(j.events, ev)
		l := j.runs[ev.RunID]
		if l == nil {
			l = &runLog{}
			j.runs[ev.RunID] = l
		}
		if ev.Kind == EventModelResponse {
			l.responses = append(l.responses, len(l.own))
		}
		if ev.Kind == EventRunEnd {
			l.ended = true
		}
		l.own = append(l.own, ev)
		l.maxSeq = max(l.maxSeq, ev.Seq)
	}
	return j
}

// WithJournal returns ctx under which runs resume from j. With a nil j,
// runs beneath ctx run without a journal.
func WithJournal(ctx context.Context, j *Journal) context.Context {
	return context.WithValue(ctx, journalKey{}, j)
}

func journalFrom(ctx context.Context) *Journal {
	j, _ := ctx.Value(journalKey{}).(*Journal)
	return j
}

// RootID returns the id of the recorded root run, or "".
func (j *Journal) RootID() string { return j.rootID }

// Pending returns the questions asked by runs that have not ended and that
// the answers do not cover, in the order they were first asked; a
// question asked again (by a resume that did not answer it) is listed
// once, as it was last asked.
func (j *Journal) Pending() []Question {
	var qs []Question
	at := map[string]int{}
	for _, ev := range j.events {
		if ev.Kind != EventInterrupt || ev.Question == nil {
			continue
		}
		if l := j.runs[ev.RunID]; l != nil && l.ended {
			continue
		}
		if _, ok := j.answers[ev.Question.ID]; ok {
			continue
		}
		if i, ok := at[ev.Question.ID]; ok {
			qs[i] = *ev.Question
			continue
		}
		at[ev.Question.ID] = len(qs)
		qs = append(qs, *ev.Question)
	}
	return qs
}

// Questions returns every question the record holds, answered or not,
// except those of runs added without their events ([Journal.AddEnded]).
func (j *Journal) Questions() []Question {
	var qs []Question
	for _, ev := range j.events {
		if ev.Kind == EventInterrupt && ev.Question != nil {
			qs = append(qs, *ev.Question)
		}
	}
	return qs
}

func (j *Journal) answer(id string) (json.RawMessage, bool) {
	a, ok := j.answers[id]
	return a, ok
}

// ended returns the recorded events of run id and its nested runs when the
// run ended, else nil.
func (j *Journal) ended(id string) []Event {
	j.mu.Lock()
	l := j.runs[id]
	j.mu.Unlock()
	if l == nil || !l.ended {
		return nil
	}
	idx := j.subtree[id]
	out := make([]Event, len(idx))
	for i, k := range idx {
		out[i] = j.events[k]
	}
	return out
}

// replay returns the record of run id for a resumed run that goes on, or
// nil when the journal holds none.
func (j *Journal) replay(id string) *runLog {
	j.mu.Lock()
	defer j.mu.Unlock()
	l := j.runs[id]
	if l == nil || l.ended {
		return nil
	}
	return l
}

// match marks ev as replayed when it is the run's next recorded event,
// copying the record's sequence number and time. Once the run's events
// differ from the record, it goes live for good.
func (l *runLog) match(ev *Event) bool {
	if l.live || l.cursor >= len(l.own) {
		l.live = true
		return false
	}
	rec := l.own[l.cursor]
	if rec.Kind != ev.Kind || !sameCall(rec, *ev) {
		l.live = true
		return false
	}
	l.cursor++
	ev.Seq, ev.Time, ev.Replayed = rec.Seq, rec.Time, true
	return true
}

func sameCall(a, b Event) bool {
	switch {
	case a.ToolCall != nil && b.ToolCall != nil:
		return a.ToolCall.ID == b.ToolCall.ID
	case a.ToolResult != nil && b.ToolResult != nil:
		return a.ToolResult.CallID == b.ToolResult.CallID
	}
	return true
}

// response returns the events of the run's k-th model call (1-based): its
// text deltas and usage, ending with its EventModelResponse, when the
// record holds it and the resumed run is still on the record.
func (l *runLog) response(k int) []Event {
	if l == nil || l.live || k > len(l.responses) {
		return nil
	}
	end := l.responses[k-1]
	if end < l.cursor {
		return nil
	}
	return l.own[l.cursor : end+1]
}
