package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"iter"
)

// anyObject is the JSON schema of an object with any fields: the schema
// [New] gives an agent whose [Info] leaves a schema out.
var anyObject = json.RawMessage(`{"type":"object","additionalProperties":true}`)

// Info is an agent's identity: what [New] needs besides the agent's body.
type Info struct {
	// Name is the agent's identifier; as a tool, the name the model calls.
	// Letters, digits, '_' or '-', starting with a letter or '_'.
	Name string
	// Description tells a model what the agent does.
	Description string
	// Kind is the agent's kind in traces (loom.agent.kind), such as
	// "workflow"; empty means "agent".
	Kind string
	// InputSchema is the JSON schema of the input object; nil means an
	// object with any fields.
	InputSchema json.RawMessage
	// OutputSchema is the JSON schema of the output object; nil means an
	// object with any fields.
	OutputSchema json.RawMessage
}

// Custom is an agent built from an [Info] and a [Body] by [New]. Every
// composition and workflow of loom is one: each embeds the *Custom that
// New returned, so its Run is the Custom's.
type Custom struct {
	info Info
	body Body
}

// New returns the agent named by info whose Run executes body as one run:
// the run gets its ids, counts against the limits on ctx, fires the hooks,
// starts a span, turns a panic in body into an error and ends with one
// [EventRunEnd] (see [Agent]). An invalid name or a nil body is an error
// wrapping [ErrInvalidConfig].
func New(info Info, body Body) (*Custom, error) {
	if err := checkName(info.Name); err != nil {
		return nil, err
	}
	if body == nil {
		return nil, fmt.Errorf("%w: agent %q has no body: give New the function its runs execute", ErrInvalidConfig, info.Name)
	}
	if info.Kind == "" {
		info.Kind = "agent"
	}
	if info.InputSchema == nil {
		info.InputSchema = anyObject
	}
	if info.OutputSchema == nil {
		info.OutputSchema = anyObject
	}
	return &Custom{info: info, body: body}, nil
}

// Name returns the agent's name.
func (c *Custom) Name() string { return c.info.Name }

// Description returns the agent's description.
func (c *Custom) Description() string { return c.info.Description }

// Kind returns the agent's kind, as traces report it.
func (c *Custom) Kind() string { return c.info.Kind }

// InputSchema returns the JSON schema of the input.
func (c *Custom) InputSchema() json.RawMessage { return c.info.InputSchema }

// OutputSchema returns the JSON schema of the output.
func (c *Custom) OutputSchema() json.RawMessage { return c.info.OutputSchema }

// Run executes the agent's body on input and yields the run's events.
func (c *Custom) Run(ctx context.Context, input json.RawMessage) iter.Seq2[Event, error] {
	return execute(ctx, c, input, c.body)
}
