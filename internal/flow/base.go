// Package flow holds what loom's compositions and the Coder→Sandbox workflow
// share: the identity and schemas of a composition agent, the JSON helpers
// that merge and read step outputs, the one rule for which errors end
// a run ([Ends]), and the reachability walk over a graph's edges.
package flow

import (
	"encoding/json"
	"fmt"

	"github.com/loomwork/loom/agent"
	"github.com/loomwork/loom/model"
)

// Kind is the agent kind of every composition, as traces
// report it in loom.agent.kind.
const Kind = "workflow"

// Base holds what every composition shares: its identity and schemas.
type Base struct {
	name, description string
	in, out           json.RawMessage
}

// Name returns the agent's name.
func (b *Base) Name() string { return b.name }

// Description returns the agent's description.
func (b *Base) Description() string { return b.description }

// InputSchema returns the JSON schema of the input.
func (b *Base) InputSchema() json.RawMessage { return b.in }

// OutputSchema returns the JSON schema of the output.
func (b *Base) OutputSchema() json.RawMessage { return b.out }

// Kind returns "workflow".
func (b *Base) Kind() string { return Kind }

// AnyObject is the schema of an object with any fields.
var AnyObject = json.RawMessage(`{"type":"object","additionalProperties":true}`)

// NewBase checks the name and fills in the schemas.
func NewBase(what, name, description string, in, out json.RawMessage) (Base, error) {
	if name == "" {
		return Base{}, fmt.Errorf("%w: %s has no name: give it one such as %q", agent.ErrInvalidConfig, what, "pipeline")
	}
	if !model.ValidToolName(name) {
		return Base{}, fmt.Errorf("%w: %s name %q is not a valid identifier: use letters, digits, '_' or '-', starting with a letter or '_'", agent.ErrInvalidConfig, what, name)
	}
	if in == nil {
		in = AnyObject
	}
	if out == nil {
		out = AnyObject
	}
	return Base{name: name, description: description, in: in, out: out}, nil
}

// ConfigError is an ErrInvalidConfig for the named composition.
func ConfigError(what, name, format string, args ...any) error {
	return fmt.Errorf("%w: %s %q: %s", agent.ErrInvalidConfig, what, name, fmt.Sprintf(format, args...))
}
