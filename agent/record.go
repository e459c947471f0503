package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/loomwork/loom/model"
)

// eventJSON is the stable JSON form of an [Event]. Field names are part of
// loom's storage format: add fields, never rename them.
type eventJSON struct {
	Kind         string             `json:"kind"`
	RunID        string             `json:"run_id"`
	ParentID     string             `json:"parent_id,omitempty"`
	Agent        string             `json:"agent,omitempty"`
	Seq          int64              `json:"seq"`
	Time         time.Time          `json:"time"`
	Replayed     bool               `json:"replayed,omitempty"`
	Input        json.RawMessage    `json:"input,omitempty"`
	Text         string             `json:"text,omitempty"`
	ToolCall     *model.ToolCall    `json:"tool_call,omitempty"`
	ToolResult   *model.ToolResult  `json:"tool_result,omitempty"`
	Usage        *model.Usage       `json:"usage,omitempty"`
	Cost         float64            `json:"cost,omitempty"`
	Output       json.RawMessage    `json:"output,omitempty"`
	Messages     []model.Message    `json:"messages,omitempty"`
	Err          *ErrorRecord       `json:"error,omitempty"`
	Parts        []json.RawMessage  `json:"parts,omitempty"`
	Response     *responseJSON      `json:"response,omitempty"`
	Question     *Question          `json:"question,omitempty"`
	FinishReason model.FinishReason `json:"finish_reason,omitempty"`
}

type responseJSON struct {
	Message      model.Message      `json:"message"`
	Usage        model.Usage        `json:"usage"`
	FinishReason model.FinishReason `json:"finish_reason,omitempty"`
}

// MarshalJSON encodes the event in its stable form: kind by name, times in
// RFC 3339 with nanoseconds, the error as an [ErrorRecord].
func (e Event) MarshalJSON() ([]byte, error) {
	j := eventJSON{
		Kind: e.Kind.String(), RunID: e.RunID, ParentID: e.ParentID, Agent: e.Agent,
		Seq: e.Seq, Time: e.Time, Replayed: e.Replayed, Input: e.Input, Text: e.Text,
		ToolCall: e.ToolCall, ToolResult: e.ToolResult, Cost: e.Cost, Output: e.Output,
		Messages: e.Messages, Err: errorRecordOf(e.Err), Question: e.Question, FinishReason: e.FinishReason,
	}
	if !e.Usage.IsZero() {
		u := e.Usage
		j.Usage = &u
	}
	if len(e.Parts) > 0 {
		parts, err := model.MarshalParts(e.Parts)
		if err != nil {
			return nil, err
		}
		j.Parts = parts
	}
	if e.Response != nil {
		j.Response = &responseJSON{Message: e.Response.Message, Usage: e.Response.Usage, FinishReason: e.Response.FinishReason}
	}
	return json.Marshal(j)
}

// UnmarshalJSON decodes the form [Event.MarshalJSON] writes. A recorded
// error decodes to an error that matches the same sentinels with errors.Is
// (see [ErrorRecord.Err]).
func (e *Event) UnmarshalJSON(data []byte) error {
	var j eventJSON
	if err := json.Unmarshal(data, &j); err != nil {
		return fmt.Errorf("agent: decode event: %w", err)
	}
	k := kindByName(j.Kind)
	if k == 0 {
		return fmt.Errorf("agent: decode event: unknown kind %q", j.Kind)
	}
	*e = Event{
		Kind: k, RunID: j.RunID, ParentID: j.ParentID, Agent: j.Agent, Seq: j.Seq, Time: j.Time,
		Replayed: j.Replayed, Input: j.Input, Text: j.Text, ToolCall: j.ToolCall, ToolResult: j.ToolResult,
		Cost: j.Cost, Output: j.Output, Messages: j.Messages, Err: j.Err.Err(), Question: j.Question,
		FinishReason: j.FinishReason,
	}
	if j.Usage != nil {
		e.Usage = *j.Usage
	}
	if len(j.Parts) > 0 {
		parts, err := model.UnmarshalParts(j.Parts)
		if err != nil {
			return fmt.Errorf("agent: decode event: %w", err)
		}
		e.Parts = parts
	}
	if j.Response != nil {
		e.Response = &model.Response{Message: j.Response.Message, Usage: j.Response.Usage, FinishReason: j.Response.FinishReason}
	}
	return nil
}

// ErrorRecord is the JSON form of an error, as an [Event]'s JSON and an
// engine's saved run state hold it (agentrt.ErrorRecordOf makes one): its
// message, the messages of the sentinel errors in its chain, and, for
// loom's typed errors, their type and fields. [ErrorRecord.Err] turns it back into an error value that
// errors.Is the same sentinels and, for agent's typed errors, errors.As the
// same type.
type ErrorRecord struct {
	// Message is err.Error().
	Message string `json:"message"`
	// Type names a typed error of package agent whose fields are in Fields:
	// "limit", "interrupted", "validation", "tool", "halt", "tripwire".
	Type string `json:"type,omitempty"`
	// Fields are the typed error's fields.
	Fields json.RawMessage `json:"fields,omitempty"`
	// Sentinels are the messages of the sentinel errors (made with
	// errors.New) found in the error's chain.
	Sentinels []string `json:"sentinels,omitempty"`
	// Cause is the record of the wrapped error of a typed error.
	Cause *ErrorRecord `json:"cause,omitempty"`
}

// errorRecordOf returns err's record, or nil for a nil error
// (agentrt.ErrorRecordOf).
func errorRecordOf(err error) *ErrorRecord {
	if err == nil {
		return nil
	}
	switch r := err.(type) {
	case *recordedError:
		return r.rec
	case *recordedTypedError:
		return r.rec
	}
	rec := &ErrorRecord{Message: err.Error(), Sentinels: sentinelsOf(err, nil)}
	var (
		le *LimitError
		ie *InterruptedError
		ve *ValidationError
		te *ToolError
		he *HaltError
		tw *TripwireError
	)
	switch {
	case errors.As(err, &ie):
		rec.Type, rec.Fields = "interrupted", mustJSON(ie.Questions)
	case errors.As(err, &he):
		rec.Type, rec.Cause = "halt", errorRecordOf(he.Err)
	case errors.As(err, &le):
		rec.Type, rec.Fields = "limit", mustJSON(limitJSON{le.Limit, le.Used, le.Max})
	case errors.As(err, &ve):
		rec.Type, rec.Fields = "validation", mustJSON(validationJSON{ve.Agent, ve.What, ve.Issues, errors.Is(ve, ErrInvalidOutput)})
	case errors.As(err, &te):
		rec.Type, rec.Fields, rec.Cause = "tool", mustJSON(toolJSON{te.Tool, te.CallID}), errorRecordOf(te.Err)
	case errors.As(err, &tw):
		rec.Type, rec.Fields = "tripwire", mustJSON(tripwireJSON{tw.Guardrail, tw.Stage, tw.Agent, tw.Reason})
	}
	return rec
}

type limitJSON struct {
	Limit string `json:"limit"`
	Used  int64  `json:"used"`
	Max   int64  `json:"max"`
}

type validationJSON struct {
	Agent  string  `json:"agent"`
	What   string  `json:"what"`
	Issues []Issue `json:"issues"`
	Output bool    `json:"output,omitempty"`
}

type tripwireJSON struct {
	Guardrail string `json:"guardrail"`
	Stage     Stage  `json:"stage"`
	Agent     string `json:"agent,omitempty"`
	Reason    string `json:"reason,omitempty"`
}

type toolJSON struct {
	Tool   string `json:"tool"`
	CallID string `json:"call_id"`
}

func mustJSON(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		return nil
	}
	return b
}

// sentinelsOf collects the messages of the plain errors.New values in err's
// chain: those are what errors.Is compares against.
func sentinelsOf(err error, acc []string) []string {
	if err == nil {
		return acc
	}
	if isSentinel(err) {
		acc = addSentinel(acc, err.Error())
	}
	if r, ok := err.(*recordedError); ok {
		for _, s := range r.rec.Sentinels {
			acc = addSentinel(acc, s)
		}
		return acc
	}
	switch u := err.(type) {
	case interface{ Unwrap() error }:
		return sentinelsOf(u.Unwrap(), acc)
	case interface{ Unwrap() []error }:
		for _, e := range u.Unwrap() {
			acc = sentinelsOf(e, acc)
		}
	}
	return acc
}

// addSentinel adds msg once: a decoded error that is re-encoded (a run
// resumed again) keeps the same record.
func addSentinel(acc []string, msg string) []string {
	if slices.Contains(acc, msg) {
		return acc
	}
	return append(acc, msg)
}

// errPlainShape has the shape of the errors errors.New returns.
var errPlainShape = errors.New("")

func isSentinel(err error) bool {
	return err == context.Canceled || err == context.DeadlineExceeded || fmt.Sprintf("%T", err) == fmt.Sprintf("%T", errPlainShape)
}

// Err returns an error with the recorded message. It matches, with
// errors.Is, every sentinel whose message was recorded; a typed error of
// package agent is rebuilt with its fields, so errors.As finds it. Err of a
// nil record is nil.
func (r *ErrorRecord) Err() error {
	if r == nil {
		return nil
	}
	re := &recordedError{rec: r}
	typed := r.typedErr(re)
	if typed == nil {
		return re
	}
	if typed.Error() != r.Message {
		// The typed error was wrapped with context (as "guardrail …: run
		// interrupted …"): the message says it all, the typed error stays
		// reachable with errors.As.
		return &recordedTypedError{rec: r, typed: typed, sentinels: re}
	}
	return typed
}

// typedErr rebuilds the typed error of package agent the record names, or
// returns nil when it names none.
func (r *ErrorRecord) typedErr(re *recordedError) error {
	switch r.Type {
	case "interrupted":
		var qs []Question
		if json.Unmarshal(r.Fields, &qs) == nil {
			return &InterruptedError{Questions: qs}
		}
	case "halt":
		return &HaltError{Err: r.Cause.Err(), msg: r.Message}
	case "limit":
		var l limitJSON
		if json.Unmarshal(r.Fields, &l) == nil {
			return &LimitError{Limit: l.Limit, Used: l.Used, Max: l.Max, cause: re}
		}
	case "validation":
		var v validationJSON
		if json.Unmarshal(r.Fields, &v) == nil {
			kind := ErrInvalidInput
			if v.Output {
				kind = ErrInvalidOutput
			}
			return &ValidationError{Agent: v.Agent, What: v.What, Issues: v.Issues, kind: kind}
		}
	case "tool":
		var t toolJSON
		if json.Unmarshal(r.Fields, &t) == nil {
			cause := r.Cause.Err()
			if cause == nil {
				cause = re
			}
			return &ToolError{Tool: t.Tool, CallID: t.CallID, Err: cause}
		}
	case "tripwire":
		var t tripwireJSON
		if json.Unmarshal(r.Fields, &t) == nil {
			return &TripwireError{Guardrail: t.Guardrail, Stage: t.Stage, Agent: t.Agent, Reason: t.Reason}
		}
	}
	return nil
}

// recordedTypedError is a typed error decoded from a record whose message
// held more than the typed error's own: the context it was wrapped in.
type recordedTypedError struct {
	rec       *ErrorRecord
	typed     error
	sentinels *recordedError
}

func (e *recordedTypedError) Error() string { return e.rec.Message }

// Unwrap returns the typed error, for errors.As, and the record, whose
// sentinels errors.Is matches.
func (e *recordedTypedError) Unwrap() []error { return []error{e.typed, e.sentinels} }

// recordedError is an error decoded from its [ErrorRecord].
type recordedError struct{ rec *ErrorRecord }

func (e *recordedError) Error() string { return e.rec.Message }

// Is matches the sentinels recorded in the chain, by message.
func (e *recordedError) Is(target error) bool {
	if target == nil || !isSentinel(target) {
		return false
	}
	msg := target.Error()
	for _, s := range e.rec.Sentinels {
		if s == msg {
			return true
		}
	}
	return false
}
