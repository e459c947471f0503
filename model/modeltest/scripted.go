package modeltest

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"sync"

	"github.com/loomwork/loom/model"
)

// ErrScriptExhausted is yielded when a [Scripted] model is called more times
// than it has turns.
var ErrScriptExhausted = errors.New("modeltest: script exhausted")

// TB is the part of testing.TB the scripted model reports to.
type TB interface {
	Helper()
	Errorf(format string, args ...any)
}

// Scripted is a [model.Model] that answers each call with the next [Turn]
// of its script and records every request. It is safe for concurrent use:
// turns are handed out in call order.
type Scripted struct {
	t     TB
	name  string
	mu    sync.Mutex
	turns []Turn
	reqs  []model.Request
}

// New returns a scripted model playing turns in order. A call beyond the
// script fails the test through t and yields [ErrScriptExhausted]. t may be
// nil (as in examples): the error is then only yielded.
func New(t TB, turns ...Turn) *Scripted {
	return &Scripted{t: t, name: "scripted", turns: turns}
}

// Provider returns "modeltest".
func (s *Scripted) Provider() string { return "modeltest" }

// Name returns "scripted".
func (s *Scripted) Name() string { return s.name }

// Append adds turns to the end of the script.
func (s *Scripted) Append(turns ...Turn) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.turns = append(s.turns, turns...)
}

// Requests returns a copy of every request received, in call order.
func (s *Scripted) Requests() []model.Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]model.Request(nil), s.reqs...)
}

// Request returns the i-th request received (from 0). It fails the test and
// returns a zero request when there is none.
func (s *Scripted) Request(i int) model.Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	if i < 0 || i >= len(s.reqs) {
		if s.t == nil {
			return model.Request{}
		}
		s.t.Helper()
		s.t.Errorf("modeltest: request %d asked for, but the model received %d", i, len(s.reqs))
		return model.Request{}
	}
	return s.reqs[i]
}

// Calls returns the number of calls made so far.
func (s *Scripted) Calls() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.reqs)
}

// Remaining returns the number of turns not yet played.
func (s *Scripted) Remaining() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.turns) - len(s.reqs)
}

// Stream plays the next turn.
func (s *Scripted) Stream(ctx context.Context, req model.Request) iter.Seq2[model.Chunk, error] {
	return func(yield func(model.Chunk, error) bool) {
		s.mu.Lock()
		n := len(s.reqs)
		s.reqs = append(s.reqs, req)
		var turn Turn
		ok := n < len(s.turns)
		if ok {
			turn = s.turns[n]
		}
		total := len(s.turns)
		s.mu.Unlock()
		if !ok {
			if s.t == nil {
				yield(model.Chunk{}, fmt.Errorf("%w: call %d, %d turns scripted", ErrScriptExhausted, n+1, total))
				return
			}
			s.t.Errorf("modeltest: model called %d times but the script has only %d turns; last request ends with %s", n+1, total, lastMessage(req))
			yield(model.Chunk{}, fmt.Errorf("%w: call %d, %d turns scripted", ErrScriptExhausted, n+1, total))
			return
		}
		for turn.fn != nil {
			turn = turn.fn(req)
		}
		if err := ctx.Err(); err != nil {
			yield(model.Chunk{}, err)
			return
		}
		for _, c := range turn.chunks {
			if !yield(c, nil) {
				return
			}
			if err := ctx.Err(); err != nil {
				yield(model.Chunk{}, err)
				return
			}
		}
		if turn.err != nil {
			yield(model.Chunk{}, turn.err)
		}
	}
}

func lastMessage(req model.Request) string {
	if len(req.Messages) == 0 {
		return "no messages"
	}
	m := req.Messages[len(req.Messages)-1]
	text := m.Text()
	if len(text) > 80 {
		text = text[:80] + "…"
	}
	return fmt.Sprintf("%s message %q", m.Role, text)
}
