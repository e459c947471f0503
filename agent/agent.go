package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"iter"
)

// Agent is anything that takes JSON input and produces JSON output as a
// stream of [Event]s: an LLM agent ([AI]), a typed Go function ([Func]), a
// sandbox, or a workflow composed of other agents. Agents are the tools of
// other agents.
//
// Run yields the run's events in order. The stream ends with exactly one
// [EventRunEnd] for the run itself; when the run failed, that event carries
// the error in Event.Err and is yielded together with the same non-nil
// error. Events of nested runs (tools, workflow steps) are yielded in
// between, each with its own RunID and ParentID; a failure of a nested run
// that the parent handles (a tool error sent back to the model) appears only
// as that nested run's EventRunEnd with Err set.
//
// Implementations build their stream with [New] (or, for an agent type of
// another package, [github.com/loomwork/loom/agent/agentrt.Execute]), which
// assigns run ids, enforces the limits on ctx, fires hooks and turns panics
// into errors.
type Agent interface {
	// Info describes the agent: its name (as a tool, the name the model
	// calls), description, kind and schemas. It is called on every run,
	// tool call and span, so it returns a value the agent holds.
	Info() Info
	// Run executes the agent on input and yields its events.
	Run(ctx context.Context, input json.RawMessage) iter.Seq2[Event, error]
}

// Invoke runs a and returns its output. It drains the same stream as Run,
// so streamed and collected results are always equal. input is a
// json.RawMessage, a []byte of JSON, a string (sent as {"message": s}), or
// any value that encodes to a JSON object.
func Invoke(ctx context.Context, a Agent, input any) (json.RawMessage, error) {
	if a == nil {
		return nil, fmt.Errorf("%w: Invoke was given a nil agent", ErrInvalidConfig)
	}
	raw, err := encodeInput(input)
	if err != nil {
		return nil, err
	}
	inv := &invocation{Context: ctx}
	a.Run(inv, raw)(inv.yield)
	if inv.err != nil {
		return nil, inv.err
	}
	return inv.out, nil
}

// InvokeAs runs a and decodes its output into a T.
func InvokeAs[T any](ctx context.Context, a Agent, input any) (T, error) {
	var v T
	out, err := Invoke(ctx, a, input)
	if err != nil {
		return v, err
	}
	if err := json.Unmarshal(out, &v); err != nil {
		return v, fmt.Errorf("agent %s: decode output into %T: %w", a.Info().Name, v, err)
	}
	return v, nil
}

// Collect drains a run's stream and returns the output of the outermost run
// (the run whose EventRunStart came first).
func Collect(stream iter.Seq2[Event, error]) (json.RawMessage, error) {
	// One collector and its method value rather than a range loop, whose
	// variables and state the compiler moves to the heap one by one.
	c := &collector{}
	stream(c.yield)
	if c.err != nil {
		return nil, c.err
	}
	return c.out, nil
}

// collector is what Collect keeps while it drains a stream.
type collector struct {
	root string
	out  json.RawMessage
	err  error
}

// yield takes one event of the stream; an error ends the stream.
func (c *collector) yield(ev Event, err error) bool {
	if c.err != nil {
		return false
	}
	if err != nil {
		c.err = err
		return false
	}
	switch {
	case ev.Kind == EventRunStart && c.root == "":
		c.root = ev.RunID
	case ev.Kind == EventRunEnd && ev.RunID == c.root:
		c.out = ev.Output
	}
	return true
}

// encodeInput turns (agentrt.EncodeInput) an input value into the JSON object an agent runs on.
// A string s becomes {"message": s}; nil becomes {}.
func encodeInput(input any) (json.RawMessage, error) {
	switch v := input.(type) {
	case nil:
		return json.RawMessage(`{}`), nil
	case json.RawMessage:
		if !json.Valid(v) {
			return nil, fmt.Errorf("%w: input is not valid JSON", ErrInvalidInput)
		}
		return v, nil
	case []byte:
		if !json.Valid(v) {
			return nil, fmt.Errorf("%w: input is not valid JSON", ErrInvalidInput)
		}
		return json.RawMessage(v), nil
	case string:
		b, err := json.Marshal(map[string]string{DefaultTextKey: v})
		return b, err
	}
	b, err := json.Marshal(input)
	if err != nil {
		return nil, fmt.Errorf("%w: encode %T: %w", ErrInvalidInput, input, err)
	}
	return b, nil
}

// Info describes an agent: what a model, a trace or a server needs to know
// of it besides running it. [Agent.Info] returns it; [New] takes it.
//
// The zero value of each field has one meaning everywhere: an empty Kind
// means "agent"; a nil InputSchema or OutputSchema means an object with
// any fields; ChecksInput false means the agent's run does not promise to
// check its input, so a caller that needs it checked (an MCP server)
// checks it against InputSchema first.
type Info struct {
	// Name is the agent's identifier; as a tool, the name the model calls.
	// Letters, digits, '_' or '-', starting with a letter or '_'.
	Name string
	// Description tells a model what the agent does.
	Description string
	// Kind is the agent's kind in traces (loom.agent.kind): "ai", "func",
	// "workflow", "graph", …; empty means "agent".
	Kind string
	// InputSchema is the JSON schema of the input object; nil means an
	// object with any fields.
	InputSchema json.RawMessage
	// OutputSchema is the JSON schema of the output object; nil means an
	// object with any fields.
	OutputSchema json.RawMessage
	// ChecksInput says a run checks its input against InputSchema before
	// anything else and fails with a [*ValidationError] ([ErrInvalidInput])
	// naming each field that does not match, as [Func] does; a caller
	// need not check the input first.
	ChecksInput bool
}

// kind is i.Kind, or "agent" when it is empty.
func (i *Info) kind() string {
	if i.Kind == "" {
		return "agent"
	}
	return i.Kind
}

// DefaultTextKey is the input and output key that carries plain text,
// unless an agent is configured otherwise.
const DefaultTextKey = "message"
