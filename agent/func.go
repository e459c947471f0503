package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"iter"
	"reflect"
)

// Func is a typed function agent: a Go function from In to Out, with both
// JSON schemas derived from the Go types. Its input is validated against
// the input schema before the function runs; a failure names each field
// path and rule, as "code: required" or "n: expected integer, got string".
// A panic inside the function becomes an error wrapping [ErrPanic].
type Func[In, Out any] struct {
	info  Info // name, description, kind "func", schemas of In and Out
	fn    func(context.Context, In) (Out, error)
	check *compiledSchema
	set   valueSetter // sets an In from the parsed input; nil: decode the text
}

// NewFunc returns a function agent. name must be a valid tool name (letters,
// digits, '_' or '-', starting with a letter or '_'); In must have an object
// schema (a struct or a map), since models call tools with JSON objects.
func NewFunc[In, Out any](name, description string, fn func(ctx context.Context, in In) (Out, error)) (*Func[In, Out], error) {
	if err := checkName(name); err != nil {
		return nil, err
	}
	if fn == nil {
		return nil, fmt.Errorf("%w: func agent %q has a nil function", ErrInvalidConfig, name)
	}
	in, err := SchemaFor[In]()
	if err != nil {
		return nil, fmt.Errorf("func agent %q: input: %w", name, err)
	}
	if t := schemaType(in); t != "object" {
		var zero In
		return nil, fmt.Errorf("%w: func agent %q: input type %T has schema type %q; use a struct or a map so models can call it with a JSON object", ErrInvalidConfig, name, zero, t)
	}
	out, err := SchemaFor[Out]()
	if err != nil {
		return nil, fmt.Errorf("func agent %q: output: %w", name, err)
	}
	check, err := compileSchema(in)
	if err != nil {
		return nil, fmt.Errorf("func agent %q: input: %w", name, err)
	}
	return &Func[In, Out]{
		info:  Info{Name: name, Description: description, Kind: "func", InputSchema: in, OutputSchema: out, ChecksInput: true},
		fn:    fn,
		check: check,
		set:   setterFor(reflect.TypeFor[In]()),
	}, nil
}

// Info returns the agent's name and description, its kind "func", the
// schemas generated from In and Out, and ChecksInput true: a run checks
// its input against the input schema before the function runs, and fails
// with a [*ValidationError] ([ErrInvalidInput]) naming each field that
// does not match, so a caller that runs f (an MCP server) need not check
// it first.
func (f *Func[In, Out]) Info() Info { return f.info }

// Run validates input, decodes it into an In, calls the function and
// encodes its result.
func (f *Func[In, Out]) Run(ctx context.Context, input json.RawMessage) iter.Seq2[Event, error] {
	return execute(ctx, f, input, f.body)
}

func (f *Func[In, Out]) body(ctx context.Context, r *Run) (json.RawMessage, error) {
	in, err := f.Input(r)
	if err != nil {
		return nil, err
	}
	out, err := f.fn(ctx, in)
	if err != nil {
		return nil, err
	}
	b, err := json.Marshal(out)
	if err != nil {
		return nil, fmt.Errorf("func agent %s: encode output %T: %w", f.info.Name, out, err)
	}
	return b, nil
}

// Input returns r's input checked against the input schema and decoded
// into an In; its error is a [*ValidationError] ([ErrInvalidInput]) naming
// each field that does not match. The input is parsed once: the schema
// check and the In share the parsed value, and in a run of a guarded
// tool ([GuardTool]) the guardrails see the same In as [GuardInput] Args.
// A body that runs f's work itself (a tool built on a Func) calls it in
// place of decoding r.Input.
func (f *Func[In, Out]) Input(r *Run) (In, error) {
	if v, err, ok := r.args.of(r.Input); ok {
		in, isIn := v.(In)
		if err != nil || isIn {
			return in, err
		}
	}
	return f.decode(r.Input)
}

// decodeArgs decodes a guarded call's arguments for its guardrails and
// its body (see [argsDecoder]).
func (f *Func[In, Out]) decodeArgs(raw json.RawMessage) (any, error) {
	in, err := f.decode(raw)
	if err != nil {
		return nil, err
	}
	return in, nil
}

// decode parses raw once, checks it against the input schema and sets an
// In from the parsed value; a type the setter cannot promise to decode as
// encoding/json does is decoded from the text.
func (f *Func[In, Out]) decode(raw json.RawMessage) (In, error) {
	var in In
	v, err := parseInput(f.info.Name, raw)
	if err != nil {
		return in, err
	}
	if err := f.check.validateInput(f.info.Name, v); err != nil {
		return in, err
	}
	if f.set != nil && f.set(v, reflect.ValueOf(&in).Elem()) {
		return in, nil
	}
	in = *new(In) // the setter may have set part of it
	if err := json.Unmarshal(raw, &in); err != nil {
		return in, &ValidationError{Agent: f.info.Name, What: "input", Issues: []Issue{{Rule: err.Error()}}, kind: ErrInvalidInput}
	}
	return in, nil
}
