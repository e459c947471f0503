package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"sync"
	"syscall"
	"time"
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

// TurnGrace is how soon a second Ctrl-C must follow the one that cancelled
// a chat turn to end the program.
const TurnGrace = 2 * time.Second

// signals routes SIGINT and SIGTERM: to the chat turn going on, if any,
// else to the whole program.
type signals struct {
	cancel context.CancelCauseFunc

	mu       sync.Mutex
	turn     context.CancelCauseFunc // the chat turn going on; nil between turns
	lastTurn time.Time               // when a Ctrl-C last cancelled a turn
	notice   func()                  // says a turn was cancelled
}

type signalsKey struct{}

// NotifyContext returns a copy of ctx that SIGINT or SIGTERM cancels with a
// [*Signaled] cause; the command then stops what it runs and exits with
// [Signaled.ExitCode]. While a chat turn runs ([Turn]), the first SIGINT
// cancels only that turn; another within [TurnGrace] cancels ctx. stop
// releases the signal handler.
func NotifyContext(ctx context.Context) (_ context.Context, stop func()) {
	ctx, cancel := context.WithCancelCause(ctx)
	s := &signals{cancel: cancel}
	ctx = context.WithValue(ctx, signalsKey{}, s)
	ch := make(chan os.Signal, 2)
	signal.Notify(ch, syscall.SIGINT, syscall.SIGTERM)
	done := make(chan struct{})
	go func() {
		for {
			select {
			case sig := <-ch:
				n, _ := sig.(syscall.Signal)
				if s.deliver(n) {
					signal.Stop(ch) // a further signal has its default effect
					return
				}
			case <-done:
				return
			}
		}
	}()
	return ctx, func() {
		signal.Stop(ch)
		close(done)
		cancel(nil)
	}
}

// deliver acts on one signal and reports whether it ended the program.
func (s *signals) deliver(sig syscall.Signal) bool {
	s.mu.Lock()
	if sig == syscall.SIGINT && s.turn != nil && time.Since(s.lastTurn) > TurnGrace {
		s.turn(&Signaled{Signal: sig})
		s.turn = nil
		s.lastTurn = time.Now()
		notice := s.notice
		s.mu.Unlock()
		if notice != nil {
			notice()
		}
		return false
	}
	s.mu.Unlock()
	s.cancel(&Signaled{Signal: sig})
	return true
}

// Turn returns the context of one chat turn: the first Ctrl-C while it
// runs cancels it (with a [*Signaled] cause) and calls notice; a second
// within [TurnGrace] cancels the whole program's ctx. end must be called
// when the turn ends. Without [NotifyContext] it is a plain cancellable
// context.
func Turn(ctx context.Context, notice func()) (_ context.Context, end func()) {
	tctx, cancel := context.WithCancelCause(ctx)
	s, ok := ctx.Value(signalsKey{}).(*signals)
	if !ok {
		return tctx, func() { cancel(nil) }
	}
	s.mu.Lock()
	s.turn, s.notice = cancel, notice
	s.mu.Unlock()
	return tctx, func() {
		s.mu.Lock()
		s.turn, s.notice = nil, nil
		s.mu.Unlock()
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

// InterruptedMessage says what a signal did to the command name: "loom
// serve: interrupted by SIGINT (Ctrl-C): stopped".
func InterruptedMessage(name string, s *Signaled, what string) string {
	return fmt.Sprintf("%s: %v: %s\n", name, s, what)
}
