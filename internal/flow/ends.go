package flow

import (
	"context"
	"errors"

	"github.com/loomwork/loom/agent"
	"github.com/loomwork/loom/agent/agentrt"
)

// Ends reports whether err must end the run as it is, rather than be
// handled by the step that saw it (retried, corrected, sent back to the
// model or the code as a failure, reported as a subtask's failure): the
// consumer stopped, a limit was breached, the run waits for an answer or
// was halted, or ctx is done. It is the one such rule: the compositions,
// the Coder→Sandbox workflow and code mode's tool calls all use it, so a
// pause or a breached limit is never mistaken for a failure to retry.
func Ends(ctx context.Context, err error) bool {
	if err == nil {
		return false
	}
	var he *agent.HaltError
	return errors.Is(err, agentrt.ErrStopped) || errors.Is(err, agent.ErrLimit) || errors.Is(err, agent.ErrInterrupted) ||
		errors.As(err, &he) || ctx.Err() != nil
}
