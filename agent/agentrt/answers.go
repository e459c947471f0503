package agentrt

import (
	"encoding/json"

	"github.com/loomwork/loom/agent"
)

// CheckAnswer checks answer against q's schema, as an engine does before
// it resumes a run with the answer. A mismatch is an error wrapping
// [agent.ErrInvalidAnswer] that names the question and each failing field.
func CheckAnswer(q agent.Question, answer json.RawMessage) error {
	return rt().CheckAnswer(q, answer)
}

// Interrupts returns the questions of every [*agent.InterruptedError] in
// errs merged into one, or nil when none of errs is an interruption: how a
// composition whose parallel steps each asked ends with one pause.
func Interrupts(errs ...error) *agent.InterruptedError { return rt().Interrupts(errs) }
