package model

import (
	"cmp"
	"encoding/json"
	"fmt"
	"iter"
	"slices"
	"strings"
)

// Response is a complete answer.
type Response struct {
	// Message is the assistant message: its text, then its tool calls in
	// index order.
	Message      Message
	Usage        Usage
	FinishReason FinishReason
}

// Collect drains a stream into a [Response]. Tool-call fragments are joined
// by index, whatever order they arrive in; arguments that never arrived
// become "{}". On error, the response so far is returned with it.
//
// An answer cut at the output token limit is returned with FinishReason
// [FinishLength] and no error (check it with [FinishReason.Err]), unless a
// tool call's arguments were cut: that is a [*CutToolCallError], since the
// call cannot be run.
func Collect(stream iter.Seq2[Chunk, error]) (*Response, error) {
	var a Assembler
	for c, err := range stream {
		if err != nil {
			return a.Response(), err
		}
		a.Add(c)
	}
	resp := a.Response()
	return resp, resp.CutToolCall()
}

// CutToolCallError reports a tool call whose arguments the provider cut at
// the output token limit, so they are not valid JSON. It wraps
// [ErrOutputLimit].
type CutToolCallError struct {
	ID, Name string
}

// Error returns the error's message.
func (e *CutToolCallError) Error() string {
	return fmt.Sprintf("tool call %q (%s): %v before its arguments were complete: raise Options.MaxOutputTokens", e.Name, e.ID, ErrOutputLimit)
}

// Unwrap returns [ErrOutputLimit].
func (e *CutToolCallError) Unwrap() error { return ErrOutputLimit }

// CutToolCall returns a [*CutToolCallError] for the first tool call whose
// arguments are not valid JSON when the answer finished at the output token
// limit, and nil otherwise.
func (r *Response) CutToolCall() error {
	if r.FinishReason != FinishLength {
		return nil
	}
	for _, c := range r.Message.ToolCalls() {
		if !json.Valid(c.Arguments) {
			return &CutToolCallError{ID: c.ID, Name: c.Name}
		}
	}
	return nil
}

// Assembler accumulates chunks into a [Response]. It is what [Collect] uses,
// exported for callers that both forward chunks and need the whole answer.
// The zero value is ready to use.
type Assembler struct {
	text   strings.Builder
	calls  []*partialCall
	usage  Usage
	finish FinishReason
}

type partialCall struct {
	index    int
	id, name string
	args     strings.Builder
}

// Add folds one chunk into the answer.
func (a *Assembler) Add(c Chunk) {
	a.text.WriteString(c.TextDelta)
	if d := c.ToolCall; d != nil {
		p := a.call(d.Index)
		if d.ID != "" {
			p.id = d.ID
		}
		if d.Name != "" {
			p.name = d.Name
		}
		p.args.WriteString(d.ArgumentsDelta)
	}
	if c.Usage != nil {
		a.usage = a.usage.Add(*c.Usage)
	}
	if c.FinishReason != "" {
		a.finish = c.FinishReason
	}
}

func (a *Assembler) call(index int) *partialCall {
	for _, p := range a.calls {
		if p.index == index {
			return p
		}
	}
	p := &partialCall{index: index}
	a.calls = append(a.calls, p)
	return p
}

// Response returns the answer assembled so far.
func (a *Assembler) Response() *Response {
	msg := Message{Role: RoleAssistant}
	if a.text.Len() > 0 {
		msg.Parts = append(msg.Parts, Text{Text: a.text.String()})
	}
	calls := slices.SortedStableFunc(slices.Values(a.calls), func(x, y *partialCall) int { return cmp.Compare(x.index, y.index) })
	for _, p := range calls {
		args := strings.TrimSpace(p.args.String())
		if args == "" {
			args = "{}"
		}
		msg.Parts = append(msg.Parts, ToolCall{ID: p.id, Name: p.name, Arguments: json.RawMessage(args)})
	}
	finish := a.finish
	if finish == "" && len(calls) > 0 {
		finish = FinishToolCalls
	}
	return &Response{Message: msg, Usage: a.usage, FinishReason: finish}
}
