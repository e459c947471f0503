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

// ends reports whether a step's err must end the composition as it is,
// rather than be handled (retried, corrected, reported as a subtask's
// failure): the consumer stopped, a limit was breached, the run waits for
// an answer or was halted, or ctx is done.
func ends(ctx context.Context, err error) bool {
	var he *agent.HaltError
	return errors.Is(err, agent.ErrStopped) || errors.Is(err, agent.ErrLimit) || errors.Is(err, agent.ErrInterrupted) ||
		errors.As(err, &he) || ctx.Err() != nil
}
