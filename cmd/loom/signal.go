package main

import (
	"context"

	"github.com/loomwork/loom/internal/cli"
)

// interrupted returns the exit status and message for a ctx a signal
// cancelled (130 for SIGINT, 143 for SIGTERM), or ok false. stopped says
// what stopping did, as "the server stopped".
func interrupted(ctx context.Context, what, stopped string) (code int, msg string, ok bool) {
	s := cli.Interrupted(ctx)
	if s == nil {
		return 0, "", false
	}
	return s.ExitCode(), cli.InterruptedMessage("loom "+what, s, stopped), true
}
