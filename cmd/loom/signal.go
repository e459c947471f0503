package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"syscall"
)

// signaled is the cause of a context a signal cancelled.
type signaled struct{ sig syscall.Signal }

func (s *signaled) Error() string { return "stopped by " + s.sig.String() }

// exitCode is 128 plus the signal's number: 130 for SIGINT, 143 for
// SIGTERM, as a shell reports them.
func (s *signaled) exitCode() int { return 128 + int(s.sig) }

// notifyContext returns a context the first SIGINT or SIGTERM cancels with
// a *signaled cause; a second signal has its default effect.
func notifyContext() context.Context {
	ctx, cancel := context.WithCancelCause(context.Background())
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, syscall.SIGINT, syscall.SIGTERM)
	go func() {
		s := <-ch
		signal.Stop(ch)
		sig, _ := s.(syscall.Signal)
		cancel(&signaled{sig: sig})
	}()
	return ctx
}

// interrupted returns the exit status and message for a ctx a signal
// cancelled, or ok false.
func interrupted(ctx context.Context, what string) (code int, msg string, ok bool) {
	var s *signaled
	if !errors.As(context.Cause(ctx), &s) {
		return 0, "", false
	}
	return s.exitCode(), fmt.Sprintf("loom %s: %v: the viewer was shut down and the database closed\n", what, s), true
}
