package cli

import (
	"context"
	"fmt"

	"github.com/loomwork/loom/internal/command"
)

// Signaled is the cause of a context a signal cancelled.
type Signaled = command.Signaled

// NotifyContext returns a copy of ctx that SIGINT or SIGTERM cancels with
// a [*Signaled] cause; in a chat, the first Ctrl-C cancels only the turn
// going on (see command.NotifyContext). stop releases the signal handler.
func NotifyContext(ctx context.Context) (_ context.Context, stop func()) {
	return command.NotifyContext(ctx)
}

// Interrupted returns the [*Signaled] that cancelled ctx, or nil.
func Interrupted(ctx context.Context) *Signaled { return command.Interrupted(ctx) }

// interruptedMessage says what a signal did to the run.
func interruptedMessage(name string, s *Signaled) string {
	return fmt.Sprintf("%s: %v: the run was cancelled, the sandbox workers stopped and the traces flushed\n", name, s)
}
