// Package flow holds what loom's compositions and the Coder→Sandbox workflow
// share: the kind of a composition agent, the JSON helpers
// that merge and read step outputs, the rule for which step errors end
// a composition, and the reachability walk over a graph's edges.
package flow

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/loomwork/loom/agent"
)

// Kind is the agent kind of every composition, as traces
// report it in loom.agent.kind.
const Kind = "workflow"

// AnyObject is the schema of an object with any fields.
var AnyObject = json.RawMessage(`{"type":"object","additionalProperties":true}`)

// ConfigError is an ErrInvalidConfig for the named composition.
func ConfigError(what, name, format string, args ...any) error {
	return fmt.Errorf("%w: %s %q: %s", agent.ErrInvalidConfig, what, name, fmt.Sprintf(format, args...))
}

// Ends reports whether a step's err must end the composition as it is,
// rather than be handled (retried, corrected, reported as a subtask's
// failure): the consumer stopped, a limit was breached, the run waits for
// an answer or was halted, or ctx is done.
func Ends(ctx context.Context, err error) bool {
	var he *agent.HaltError
	return errors.Is(err, agent.ErrStopped) || errors.Is(err, agent.ErrLimit) || errors.Is(err, agent.ErrInterrupted) ||
		errors.As(err, &he) || ctx.Err() != nil
}
