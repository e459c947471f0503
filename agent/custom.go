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

// Custom is an agent built from an [Info] and a [Body] by [New]. Every
// composition and workflow of loom is one: each embeds the *Custom that
// New returned, so its Info and Run are the Custom's.
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

// Info returns the agent's name, description, kind and schemas: the
// [Info] given to [New], with its empty Kind and nil schemas filled in.
func (c *Custom) Info() Info { return c.info }

// Run executes the agent's body on input and yields the run's events.
func (c *Custom) Run(ctx context.Context, input json.RawMessage) iter.Seq2[Event, error] {
	return execute(ctx, c, input, c.body)
}
