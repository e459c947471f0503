package agent

import (
	"context"
	"encoding/json"
)

// inlineCall is a run's request that the next execute beneath it (the
// tool a guarded tool calls) run its body inside the run instead of as a
// nested run, and what that body returned. It lives in the [Run], so the
// request costs no allocation.
type inlineCall struct {
	pending bool // asked, not yet taken
	taken   bool
	out     json.RawMessage
	err     error
}

// inline runs tool's work inside r with input as r's input: when tool's
// Run is execute, its body runs in r (its events are r's, its nested
// runs r's children, and no run, span or invocation is added); any other
// tool runs as a nested run of r. It returns the output and error.
func (r *Run) inline(ctx context.Context, tool Agent, input json.RawMessage) (json.RawMessage, error) {
	r.inl = inlineCall{pending: true}
	end, err := r.child(ctx, tool, input, r.emit)
	c := r.inl
	r.inl = inlineCall{}
	if c.taken {
		return c.out, c.err
	}
	if err != nil {
		return nil, err
	}
	r.setResultParts(end.Parts...)
	return end.Output, nil
}

// runInline runs body inside r with input as r's input, when r asked for
// it and no run beneath r has taken the request yet. It reports whether it
// ran body.
func (r *Run) runInline(ctx context.Context, input json.RawMessage, body Body) bool {
	if r == nil || !r.inl.pending {
		return false
	}
	r.inl.pending, r.inl.taken = false, true
	saved := r.Input
	r.Input = input
	defer func() { r.Input = saved }()
	r.inl.out, r.inl.err = body(ctx, r)
	return true
}

// endObserver is an agent told of each of its runs' ends, replayed ones
// included (a guarded tool with an OnEnd guard).
type endObserver interface {
	runEnded(input json.RawMessage, err error)
}

// recordedErr returns the error the run id ended with in rec.
func recordedErr(rec []Event, id string) error {
	for i := len(rec) - 1; i >= 0; i-- {
		if rec[i].Kind == EventRunEnd && rec[i].RunID == id {
			return rec[i].Err
		}
	}
	return nil
}

// argsDecoder is a tool that checks its arguments against its input schema
// and decodes them into its input type ([Func], and a tool that embeds
// one). A guarded tool decodes the arguments of a call once, for its
// guardrails ([GuardInput] Args) and for the tool's body, which runs in
// the same run.
type argsDecoder interface {
	decodeArgs(raw json.RawMessage) (any, error)
}

// decodedArgs is a run's arguments as its tool decoded them.
type decodedArgs struct {
	raw json.RawMessage
	v   any
	err error
}

// of returns the decoded arguments when they were decoded from raw itself
// (the same bytes, not equal ones: a guardrail that replaced the
// arguments made new ones).
func (d *decodedArgs) of(raw json.RawMessage) (any, error, bool) {
	if d.raw == nil || !sameBytes(d.raw, raw) {
		return nil, nil, false
	}
	return d.v, d.err, true
}

// sameBytes reports whether a and b are the same bytes in memory, not
// only equal ones.
func sameBytes(a, b []byte) bool {
	return len(a) == len(b) && len(a) > 0 && &a[0] == &b[0]
}

// argsFor returns raw decoded by dec, decoding it unless r holds it; nil
// when dec is nil or raw does not decode.
func (r *Run) argsFor(dec argsDecoder, raw json.RawMessage) any {
	if dec == nil {
		return nil
	}
	v, err, ok := r.args.of(raw)
	if !ok {
		v, err = dec.decodeArgs(raw)
		r.args = decodedArgs{raw: raw, v: v, err: err}
	}
	if err != nil {
		return nil
	}
	return v
}
