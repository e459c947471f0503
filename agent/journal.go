package agent

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"

	"github.com/loomwork/loom/agent/internal/rtkey"
	"github.com/loomwork/loom/model"
)

// journal is agent's index of the journal a resumed run follows
// (agentrt.Journal, agentrt.WithJournal): the recorded events by run, the
// answers, and the ended runs added without their events. It is built once
// per agentrt.Journal, when the first run under it starts.
type journal struct {
	events  []Event
	runs    map[string]*runLog
	subtree map[string][]int // run id -> indexes in events of the run's and its nested runs' events
	answers map[string]json.RawMessage
	rootID  string
	lazy    map[string][]*lazyRuns // parent id -> ended runs added without their events (addEnded)

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

// journalSource is what an agentrt.Journal on a context offers: its
// record, its ended runs added without events, and the index built of
// them once.
type journalSource interface {
	Record() ([]Event, map[string]json.RawMessage)
	Ended(add func(parent string, from, to int, usage model.Usage, cost float64, replayed model.Usage, replayedCost float64, load func(context.Context, string) ([]Event, error)))
	Index(build func(src any) any) any
}

// buildJournal indexes the record and the ended runs of src, a
// journalSource. It captures nothing, so asking for the index allocates
// nothing.
func buildJournal(s any) any {
	src := s.(journalSource)
	j := newJournal(src.Record())
	src.Ended(func(parent string, from, to int, usage model.Usage, cost float64, replayed model.Usage, replayedCost float64, load func(context.Context, string) ([]Event, error)) {
		j.addEnded(parent, from, to, runTotals{usage, cost, replayed, replayedCost}, load)
	})
	return j
}

// newJournal indexes the recorded events (in the order they were yielded)
// with answers to the run's questions, keyed by question id. An
// interrupted run's end is left out, so the run continues past it.
func newJournal(events []Event, answers map[string]json.RawMessage) *journal {
	j := &journal{events: make([]Event, 0, len(events)), runs: make(map[string]*runLog), subtree: make(map[string][]int), answers: answers}
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

// journalFrom returns the index of the journal on ctx, or nil.
func journalFrom(ctx context.Context) *journal {
	src, ok := ctx.Value(rtkey.Journal{}).(journalSource)
	if !ok {
		return nil
	}
	return src.Index(buildJournal).(*journal)
}

func (j *journal) answer(id string) (json.RawMessage, bool) {
	a, ok := j.answers[id]
	return a, ok
}

// ended returns the recorded events of run id and its nested runs when the
// run ended, else nil.
func (j *journal) ended(id string) []Event {
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
func (j *journal) replay(id string) *runLog {
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
