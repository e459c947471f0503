package agent

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// ErrInterrupted marks a run that stopped to wait for answers: an approval,
// human input, an elicitation. The error is an [*InterruptedError] listing
// the questions; an engine with a checkpoint store saves the run, and
// resuming it with the answers continues where it stopped.
var ErrInterrupted = errors.New("run interrupted: waiting for an answer")

// ErrInvalidAnswer marks an answer that does not match its question's
// schema.
var ErrInvalidAnswer = errors.New("invalid answer")

// Question is what an interrupted step waits for. A user needs two of its
// fields: ID, to answer it, and Run, to resume the run that waits.
type Question struct {
	// ID identifies the question within its run; answers are keyed by it.
	// It is derived from the id of the run that asked (see [Question.AskedBy]),
	// so a replay asks the same question under the same id.
	ID string `json:"id"`
	// Run is the run to resume with the answer: the root run of the run
	// that asked.
	Run string `json:"run"`
	// Kind says what is asked, such as "approval" or "input".
	Kind string `json:"kind"`
	// Payload is what the person needs to answer: the code to approve, the
	// prompt.
	Payload json.RawMessage `json:"payload,omitempty"`
	// Schema is the JSON schema the answer must match; empty accepts any
	// JSON value.
	Schema json.RawMessage `json:"schema,omitempty"`
}

// AskedBy returns the id of the run that asked q (Run itself or a run
// nested in it), from the question's id.
func (q Question) AskedBy() string {
	if i := strings.LastIndexByte(q.ID, '?'); i >= 0 {
		return q.ID[:i]
	}
	return ""
}

// UnmarshalJSON decodes a question, also in the form saved before Run
// existed ("run_id", the run that asked, and "root_id", the run to
// resume), so runs saved then still resume.
func (q *Question) UnmarshalJSON(b []byte) error {
	type plain Question
	var w struct {
		plain
		RunID  string `json:"run_id"`
		RootID string `json:"root_id"`
	}
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	*q = Question(w.plain)
	if q.Run == "" {
		q.Run = cmp.Or(w.RootID, w.RunID)
	}
	return nil
}

// InterruptedError ends a run that waits for answers. Parallel steps that
// each ask are collected into one InterruptedError. It wraps
// [ErrInterrupted].
type InterruptedError struct {
	Questions []Question
}

// Error lists the questions' ids and kinds.
func (e *InterruptedError) Error() string {
	parts := make([]string, len(e.Questions))
	for i, q := range e.Questions {
		parts[i] = q.Kind + " " + q.ID
	}
	return fmt.Sprintf("%s (%s)", ErrInterrupted.Error(), strings.Join(parts, ", "))
}

// Unwrap returns [ErrInterrupted].
func (e *InterruptedError) Unwrap() error { return ErrInterrupted }

// interrupts returns the questions of every [*InterruptedError] in errs
// merged into one, or nil when none of errs is an interruption
// (agentrt.Interrupts).
func interrupts(errs ...error) *InterruptedError {
	var all *InterruptedError
	for _, err := range errs {
		var ie *InterruptedError
		if !errors.As(err, &ie) {
			continue
		}
		if all == nil {
			all = &InterruptedError{}
		}
		all.Questions = append(all.Questions, ie.Questions...)
	}
	return all
}

// Ask asks a question from inside a run and returns its answer. The first
// time, the run emits an [EventInterrupt] and Ask returns an
// [*InterruptedError]: the step must return that error (wrapped or not), so
// the run ends and waits. When the run is resumed with an answer for the
// question (see the engine's Resume), Ask returns the answer, and the work
// the run did before asking is replayed, not repeated.
//
// kind says what is asked ("approval", "input"), payload what the person
// needs to see, and schema the JSON schema the answer must match (nil
// accepts any value). Ask must be called with the ctx of a run's body.
func Ask(ctx context.Context, kind string, payload any, schema json.RawMessage) (json.RawMessage, error) {
	r := runFrom(ctx)
	if r == nil {
		return nil, fmt.Errorf("%w: agent.Ask was called outside a run: call it with the ctx a run's body received", ErrInvalidConfig)
	}
	var raw json.RawMessage
	if payload != nil {
		b, err := json.Marshal(payload)
		if err != nil {
			return nil, fmt.Errorf("agent %s: encode the question's payload: %w", r.Agent.Info().Name, err)
		}
		raw = b
	}
	r.questions++
	root := r
	for root.parent != nil {
		root = root.parent
	}
	q := Question{ID: r.ID + "?" + strconv.Itoa(r.questions), Run: root.ID, Kind: kind, Payload: raw, Schema: schema}
	if !r.emit(Event{Kind: EventInterrupt, Question: &q}) {
		return nil, errStopped
	}
	if j := journalFrom(ctx); j != nil {
		if a, ok := j.answer(q.ID); ok {
			return a, nil
		}
	}
	return nil, &InterruptedError{Questions: []Question{q}}
}

// HaltError ends the run of the step that returned it, and every run above
// it up to the agent that expects it: an AI agent does not send it back to
// the model as a tool error but fails with it. Wrap the error to return
// with [Halt].
type HaltError struct {
	Err error
	msg string
}

// Halt returns err wrapped in a [*HaltError], or nil for a nil err.
func Halt(err error) error {
	if err == nil {
		return nil
	}
	return &HaltError{Err: err}
}

// Error returns the wrapped error's message.
func (e *HaltError) Error() string {
	if e.Err == nil {
		return e.msg
	}
	return e.Err.Error()
}

// Unwrap returns the wrapped error.
func (e *HaltError) Unwrap() error { return e.Err }

// checkAnswer checks answer against q's schema (agentrt.CheckAnswer). A
// mismatch is an error wrapping [ErrInvalidAnswer] that names the question
// and each failing field.
func checkAnswer(q Question, answer json.RawMessage) error {
	if !json.Valid(answer) {
		return fmt.Errorf("%w for question %s (%s): not valid JSON: answer with a JSON value", ErrInvalidAnswer, q.ID, q.Kind)
	}
	if len(q.Schema) == 0 {
		return nil
	}
	s, err := compileSchema(q.Schema)
	if err != nil {
		return fmt.Errorf("question %s: %w", q.ID, err)
	}
	if err := s.validate(q.Kind, "answer", answer); err != nil {
		var ve *ValidationError
		if errors.As(err, &ve) {
			return fmt.Errorf("%w for question %s (%s): %s; the answer must match %s", ErrInvalidAnswer, q.ID, q.Kind, issuesText(ve.Issues), q.Schema)
		}
		return fmt.Errorf("%w for question %s: %w", ErrInvalidAnswer, q.ID, err)
	}
	return nil
}

func issuesText(issues []Issue) string {
	parts := make([]string, len(issues))
	for i, is := range issues {
		parts[i] = is.String()
	}
	return strings.Join(parts, "; ")
}
