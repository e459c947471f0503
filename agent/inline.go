package agent

import (
	"context"
	"encoding/json"
)

// inlineCall asks the next [Execute] beneath parent (the tool a guarded
// tool calls) to run its body inside parent instead of as a nested run,
// and keeps what the body returned.
type inlineCall struct {
	parent *Run
	taken  bool
	out    json.RawMessage
	err    error
}

type inlineKey struct{}

// inline runs tool's work inside r with input as r's input: when tool's
// Run is [Execute], its body runs in r (its events are r's, its nested
// runs r's children, and no run, span or invocation is added); any other
// tool runs as a nested run of r. It returns the output and error.
func (r *Run) inline(ctx context.Context, tool Agent, input json.RawMessage) (json.RawMessage, error) {
	c := &inlineCall{parent: r}
	end, err := r.child(context.WithValue(ctx, inlineKey{}, c), tool, input, r.Emit)
	if c.taken {
		return c.out, c.err
	}
	if err != nil {
		return nil, err
	}
	r.SetResultParts(end.Parts...)
	return end.Output, nil
}

// takeInline returns the inline call meant for a run starting beneath
// parent, once.
func takeInline(ctx context.Context, parent *Run) *inlineCall {
	if parent == nil {
		return nil
	}
	c, ok := ctx.Value(inlineKey{}).(*inlineCall)
	if !ok || c.taken || c.parent != parent {
		return nil
	}
	c.taken = true
	return c
}

// runInline runs body inside r with input as r's input.
func (r *Run) runInline(ctx context.Context, input json.RawMessage, body Body) (json.RawMessage, error) {
	saved := r.Input
	r.Input = input
	defer func() { r.Input = saved }()
	return body(ctx, r)
}
