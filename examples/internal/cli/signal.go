package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"syscall"
)

// Signaled is the cause of a context a signal cancelled.
type Signaled struct{ Signal syscall.Signal }

// Error names the signal, as "interrupted by SIGTERM".
func (s *Signaled) Error() string { return "interrupted by " + signalName(s.Signal) }

// ExitCode is 128 plus the signal's number, as a shell reports it: 130 for
// SIGINT (Ctrl-C), 143 for SIGTERM.
func (s *Signaled) ExitCode() int { return 128 + int(s.Signal) }

func signalName(s syscall.Signal) string {
	switch s {
	case syscall.SIGINT:
		return "SIGINT (Ctrl-C)"
	case syscall.SIGTERM:
		return "SIGTERM"
	}
	return s.String()
}

// NotifyContext returns a copy of ctx that the first SIGINT or SIGTERM
// cancels with a [*Signaled] cause. After that first signal the default
// action is back, so a second one ends the program at once. stop releases
// the signal handler.
func NotifyContext(ctx context.Context) (_ context.Context, stop func()) {
	ctx, cancel := context.WithCancelCause(ctx)
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, syscall.SIGINT, syscall.SIGTERM)
	done := make(chan struct{})
	go func() {
		select {
		case s := <-ch:
			signal.Stop(ch)
			sig, _ := s.(syscall.Signal)
			cancel(&Signaled{Signal: sig})
		case <-done:
		}
	}()
	return ctx, func() {
		signal.Stop(ch)
		close(done)
		cancel(nil)
	}
}

// Interrupted returns the [*Signaled] that cancelled ctx, or nil.
func Interrupted(ctx context.Context) *Signaled {
	var s *Signaled
	if errors.As(context.Cause(ctx), &s) {
		return s
	}
	return nil
}

// interruptedMessage says what a signal did to the run.
func interruptedMessage(name string, s *Signaled) string {
	return fmt.Sprintf("%s: %v: the run was cancelled, the sandbox workers stopped and the traces flushed\n", name, s)
}
