package temporal

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/loomwork/loom/agent"

	"github.com/loomwork/loom/agent/agentrt"
	"go.temporal.io/sdk/workflow"
)

// The names of the handlers [Run] registers.
const (
	// AnswerSignal is the signal that answers a question: its argument is
	// an [Answer]. An answer to no pending question, or one that does not
	// match the question's schema, is logged and dropped.
	AnswerSignal = "loom.answer"
	// AnswerUpdate is the update that answers a question: its argument is
	// an [Answer]; it is rejected, with the reason, when the question is
	// not pending or the answer does not match its schema.
	AnswerUpdate = "loom.answer"
	// StatusQuery is the query that shows a run: its argument is a cursor
	// (an event count, 0 for all) and its result a [Status].
	StatusQuery = "loom.status"
)

// ErrNotPending marks an answer to a question the run is not waiting for.
var ErrNotPending = errors.New("question not pending")

// Answer answers one question of a run.
type Answer struct {
	// QuestionID is the question's id (agent.Question.ID).
	QuestionID string `json:"question_id"`
	// Answer is the answer, a JSON value matching the question's schema.
	Answer json.RawMessage `json:"answer"`
}

// Status is what [StatusQuery] returns: the questions the run waits for,
// and its events from the cursor on.
type Status struct {
	Pending []agent.Question `json:"pending,omitempty"`
	// Events are the run's events from the cursor on, in order.
	Events []agent.Event `json:"events,omitempty"`
	// Next is the cursor of the next query: the number of events so far.
	Next int `json:"next"`
	// Done reports whether the run ended.
	Done bool `json:"done"`
}

// Run runs a with input as the workflow code of wctx and returns its
// output. Each question the run asks (agent.Ask, a code approval) makes it
// wait, with no time limit and across any number of worker and server
// restarts, for an [Answer] by the [AnswerSignal] signal or the
// [AnswerUpdate] update; once every question is answered, the run resumes
// from its journal: finished model calls and tool runs are not repeated. The
// [StatusQuery] query shows the pending questions and the run's events.
//
// Run registers those handlers on wctx, so call it at most once per
// workflow.
func Run(wctx workflow.Context, a agent.Agent, input json.RawMessage) (json.RawMessage, error) {
	r := &runState{answers: map[string]json.RawMessage{}}
	if err := r.register(wctx); err != nil {
		return nil, err
	}
	ctx := Context(wctx)
	b, _ := bridgeFrom(ctx)
	rootID := b.nextRootID()
	ctx = agentrt.WithIDs(ctx, func() string { return rootID })
	for {
		rctx := ctx
		if len(r.record) > 0 {
			rctx = agentrt.WithJournal(ctx, agentrt.NewJournal(r.record, r.answers))
		}
		var out json.RawMessage
		var runErr error
		for ev, err := range a.Run(rctx, input) {
			r.events = append(r.events, ev)
			if !ev.Replayed {
				r.record = append(r.record, ev)
			}
			if ev.Kind == agent.EventRunEnd && ev.ParentID == "" {
				out, runErr = ev.Output, err
			}
		}
		ie := agentrt.Interrupts(runErr)
		if ie == nil {
			r.done = true
			return out, runErr
		}
		r.pending = ie.Questions
		var err error
		b.block(func(w workflow.Context) { err = workflow.Await(w, r.answered) })
		if err != nil {
			r.done = true
			return nil, err
		}
		r.pending = nil
	}
}

// runState is a [Run]'s record, pending questions and answers.
type runState struct {
	record  []agent.Event // the events run live, the journal of a resume
	events  []agent.Event // every event yielded, replayed ones too
	pending []agent.Question
	answers map[string]json.RawMessage
	done    bool
}

func (r *runState) answered() bool {
	for _, q := range r.pending {
		if _, ok := r.answers[q.ID]; !ok {
			return false
		}
	}
	return true
}

// check returns why ans cannot answer a pending question, or nil.
func (r *runState) check(ans Answer) error {
	for _, q := range r.pending {
		if q.ID != ans.QuestionID {
			continue
		}
		if _, ok := r.answers[q.ID]; ok {
			return fmt.Errorf("%w: question %s is already answered", ErrNotPending, q.ID)
		}
		return agentrt.CheckAnswer(q, ans.Answer)
	}
	return fmt.Errorf("%w: the run does not wait for question %q: query %s for the pending questions", ErrNotPending, ans.QuestionID, StatusQuery)
}

func (r *runState) register(wctx workflow.Context) error {
	if err := workflow.SetQueryHandler(wctx, StatusQuery, func(cursor int) (Status, error) {
		cursor = min(max(cursor, 0), len(r.events))
		return Status{Pending: r.pending, Events: r.events[cursor:], Next: len(r.events), Done: r.done}, nil
	}); err != nil {
		return err
	}
	if err := workflow.SetUpdateHandlerWithOptions(wctx, AnswerUpdate, func(_ workflow.Context, ans Answer) error {
		r.answers[ans.QuestionID] = ans.Answer
		return nil
	}, workflow.UpdateHandlerOptions{Validator: r.check}); err != nil {
		return err
	}
	ch := workflow.GetSignalChannel(wctx, AnswerSignal)
	workflow.Go(wctx, func(w workflow.Context) {
		for {
			var ans Answer
			ch.Receive(w, &ans)
			if err := r.check(ans); err != nil {
				workflow.GetLogger(w).Warn("answer dropped", "question", ans.QuestionID, "error", err)
				continue
			}
			r.answers[ans.QuestionID] = ans.Answer
		}
	})
	return nil
}
