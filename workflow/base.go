package workflow

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/loomwork/loom/agent"
	"github.com/loomwork/loom/model"
)

// Kind is the agent kind of every composition in this package, as traces
// report it in loom.agent.kind.
const Kind = "workflow"

// base holds what every composition shares: its identity and schemas.
type base struct {
	name, description string
	in, out           json.RawMessage
}

// Name returns the agent's name.
func (b *base) Name() string { return b.name }

// Description returns the agent's description.
func (b *base) Description() string { return b.description }

// InputSchema returns the JSON schema of the input.
func (b *base) InputSchema() json.RawMessage { return b.in }

// OutputSchema returns the JSON schema of the output.
func (b *base) OutputSchema() json.RawMessage { return b.out }

// Kind returns "workflow".
func (b *base) Kind() string { return Kind }

// anyObject is the schema of an object with any fields.
var anyObject = json.RawMessage(`{"type":"object","additionalProperties":true}`)

// newBase checks the name and fills in the schemas.
func newBase(what, name, description string, in, out json.RawMessage) (base, error) {
	if name == "" {
		return base{}, fmt.Errorf("%w: %s has no name: give it one such as %q", agent.ErrInvalidConfig, what, "pipeline")
	}
	if !model.ValidToolName(name) {
		return base{}, fmt.Errorf("%w: %s name %q is not a valid identifier: use letters, digits, '_' or '-', starting with a letter or '_'", agent.ErrInvalidConfig, what, name)
	}
	if in == nil {
		in = anyObject
	}
	if out == nil {
		out = anyObject
	}
	return base{name: name, description: description, in: in, out: out}, nil
}

// configError is an ErrInvalidConfig for the named composition.
func configError(what, name, format string, args ...any) error {
	return fmt.Errorf("%w: %s %q: %s", agent.ErrInvalidConfig, what, name, fmt.Sprintf(format, args...))
}

// errStopped ends a body whose consumer stopped reading. Execute drops it.
var errStopped = errors.New("workflow: consumer stopped")

// call runs child as a nested run of r, passing its events on, and returns
// its output. stopped reports that the consumer stopped reading; the body
// should then return promptly.
func call(ctx context.Context, r *agent.Run, child agent.Agent, input json.RawMessage) (out json.RawMessage, err error) {
	ended := false
	for ev, e := range child.Run(ctx, input) {
		if ev.Kind == agent.EventRunEnd && ev.ParentID == r.ID {
			out, err, ended = ev.Output, ev.Err, true
		}
		if ev.Kind != 0 && !r.Emit(ev) {
			return nil, errStopped
		}
		if e != nil && !ended {
			err = e
		}
	}
	return out, err
}
