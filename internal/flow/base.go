// Package flow holds what loom's compositions and the Coder→Sandbox workflow
// share: the kind of a composition agent, the JSON helpers
// that merge and read step outputs, the one rule for which errors end
// a run ([Ends]), and the reachability walk over a graph's edges.
package flow

import (
	"encoding/json"
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
