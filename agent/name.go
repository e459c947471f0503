package agent

import (
	"fmt"

	"github.com/loomwork/loom/model"
)

// checkName rejects names that models cannot call.
func checkName(name string) error {
	if name == "" {
		return fmt.Errorf("%w: agent name is empty: give it a name such as \"search\"", ErrInvalidConfig)
	}
	if !model.ValidToolName(name) {
		return fmt.Errorf("%w: agent name %q is not a valid identifier: use letters, digits, '_' or '-', starting with a letter or '_', at most 64 characters", ErrInvalidConfig, name)
	}
	return nil
}
