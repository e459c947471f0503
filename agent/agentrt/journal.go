package agentrt

import (
	"context"
	"encoding/json"
	"errors"
	"sync"
	"sync/atomic"

	"github.com/loomwork/loom/agent"
	"github.com/loomwork/loom/agent/internal/rtkey"
	"github.com/loomwork/loom/model"
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
//     its ended steps ([SkipEnded]);
//   - a model call the journal holds is not made again: its recorded text,
//     usage and response are replayed;
//   - a question the answers cover is answered (see
//     [github.com/loomwork/loom/agent.Ask]);
//   - everything else runs.
//
// Engines build a journal from the events their checkpoints saved with
// [NewJournal], add the ended runs they hold without events with
// [Journal.AddEnded], and run the root under [WithJournal]. A Journal is
// used by one resumed run at a time.
type Journal struct {
	events  []agent.Event
	answers map[string]json.RawMessage
	ended   []EndedRuns

	mu    sync.Mutex
	index atomic.Pointer[any] // package agent's index of the journal, built by the first run
}

// EndedRuns are nested runs that a journal holds as ended without their
// events, given to [Journal.AddEnded]: the nested runs From to To of the
// run Parent (ids Parent.From to Parent.To), each with every run beneath
// it. Their events are loaded only when a resumed run replays one of
// them, so a journal of a long run costs little to build, and nothing is
// loaded for the runs a resumed run skips ([SkipEnded]).
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
	Load func(ctx context.Context, id string) ([]agent.Event, error)
}

// NewJournal returns the journal of the recorded events (in the order they
// were yielded) with answers to the run's questions, keyed by question id.
// An interrupted run's end is left out, so the run continues past it.
// The journal keeps events; the caller must not change them afterwards.
func NewJournal(events []agent.Event, answers map[string]json.RawMessage) *Journal {
	return &Journal{events: events, answers: answers}
}

// AddEnded adds nested runs that ended, without their events. Add them
// before the journal's run starts.
func (j *Journal) AddEnded(runs ...EndedRuns) {
	j.ended = append(j.ended, runs...)
}

// WithJournal returns ctx under which runs resume from j. With a nil j,
// runs beneath ctx run without a journal.
func WithJournal(ctx context.Context, j *Journal) context.Context {
	if j == nil {
		return context.WithValue(ctx, rtkey.Journal{}, nil)
	}
	return context.WithValue(ctx, rtkey.Journal{}, source{j})
}

// interrupted reports whether ev is the end of a run that stopped to wait
// for answers: a journal leaves it out.
func interrupted(ev agent.Event) bool {
	return ev.Kind == agent.EventRunEnd && errors.Is(ev.Err, agent.ErrInterrupted)
}

// RootID returns the id of the recorded root run, or "".
func (j *Journal) RootID() string {
	for _, ev := range j.events {
		if ev.Kind == agent.EventRunStart && ev.ParentID == "" {
			return ev.RunID
		}
	}
	return ""
}

// Pending returns the questions asked by runs that have not ended and that
// the answers do not cover, in the order they were first asked; a
// question asked again (by a resume that did not answer it) is listed
// once, as it was last asked.
func (j *Journal) Pending() []agent.Question {
	ended := map[string]bool{}
	for _, ev := range j.events {
		if ev.Kind == agent.EventRunEnd && !interrupted(ev) {
			ended[ev.RunID] = true
		}
	}
	var qs []agent.Question
	at := map[string]int{}
	for _, ev := range j.events {
		if ev.Kind != agent.EventInterrupt || ev.Question == nil || ended[ev.RunID] {
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
func (j *Journal) Questions() []agent.Question {
	var qs []agent.Question
	for _, ev := range j.events {
		if ev.Kind == agent.EventInterrupt && ev.Question != nil {
			qs = append(qs, *ev.Question)
		}
	}
	return qs
}

// source is what package agent reads of a journal on a context: the
// record, the ended runs, and the index agent builds of them once.
type source struct{ j *Journal }

// Record returns the recorded events and the answers.
func (s source) Record() ([]agent.Event, map[string]json.RawMessage) {
	return s.j.events, s.j.answers
}

// Ended calls add with each group of ended runs added without events.
func (s source) Ended(add func(parent string, from, to int, usage model.Usage, cost float64, replayed model.Usage, replayedCost float64, load func(context.Context, string) ([]agent.Event, error))) {
	for _, r := range s.j.ended {
		add(r.Parent, r.From, r.To, r.Usage, r.Cost, r.Replayed, r.ReplayedCost, r.Load)
	}
}

// Index returns the journal's index, built by build(s) the first time.
// Every run under the journal asks for it, so the path after the first
// is one atomic load.
func (s source) Index(build func(src any) any) any {
	if v := s.j.index.Load(); v != nil {
		return *v
	}
	s.j.mu.Lock()
	defer s.j.mu.Unlock()
	if v := s.j.index.Load(); v != nil {
		return *v
	}
	v := build(s)
	s.j.index.Store(&v)
	return v
}

// SkipEnded moves r, resumed from a journal, past the nested runs it had
// started that ended, from its next one on, as far as the first that did
// not end; ctx is the context r's body received. It returns the
// EventRunEnd of the last of them (false when the next nested run had not
// ended, or r is not resumed); the next nested run the body starts gets
// the id after it. The skipped runs are not replayed: their events are
// not yielded again and hooks do not see them, but their usage and cost
// count toward the run's and the budget's as a replay's would. A
// composition whose nested runs each carry its whole progress in their
// output (a graph's super-steps) resumes from the last one this way, in
// time independent of how many came before. When the last one's record
// cannot be read, the returned end carries the error.
func SkipEnded(ctx context.Context, r *agent.Run) (agent.Event, bool) {
	v, ok := ctx.Value(rtkey.Run{}).(interface {
		Of(*agent.Run) bool
		SkipEnded(context.Context) (agent.Event, bool)
	})
	if !ok || !v.Of(r) {
		return agent.Event{}, false
	}
	return v.SkipEnded(ctx)
}
