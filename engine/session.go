package engine

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"sync/atomic"

	"github.com/loomwork/loom/agent"
	"github.com/loomwork/loom/internal/flow"
	"github.com/loomwork/loom/model"
)

// ErrSessionBusy marks a turn started while another turn of the same
// session is still running.
var ErrSessionBusy = errors.New("session busy: a turn is already running; wait for it to end")

// Session is a multi-turn conversation with one agent on an engine. Each
// turn sends the earlier turns kept by its [Memory] to the model as real
// user, assistant and tool messages (through [agent.WithHistory]), and
// records the turn when it succeeds. Turns run one at a time.
type Session struct {
	engine *Engine
	agent  agent.Agent
	memory Memory
	id     string
	busy   atomic.Bool
}

// NewSession returns a conversation with a on e, remembered by mem (a
// [Buffer] when nil).
//
// The history reaches the root run when it is an AI agent, and workflows
// that hand the conversation to an AI child (such as [github.com/loomwork/loom/codeexec.CodeExecution])
// forward it. The turn recorded is the root run's messages
// (EventRunEnd.Messages); for an agent that reports none, the input text
// and the output text as a user and an assistant message.
func (e *Engine) NewSession(a agent.Agent, mem Memory) *Session {
	if mem == nil {
		mem = NewBuffer()
	}
	s := &Session{engine: e, agent: a, memory: mem}
	if m, ok := mem.(interface{ ID() string }); ok {
		s.id = m.ID()
	}
	if s.id == "" {
		var b [8]byte
		_, _ = rand.Read(b[:])
		s.id = hex.EncodeToString(b[:])
	}
	return s
}

// ID returns the session's id: the one it was opened with
// ([Engine.OpenSession]) or its memory's, else a random one.
func (s *Session) ID() string { return s.id }

// Memory returns the session's memory.
func (s *Session) Memory() Memory { return s.memory }

// Run runs one turn and yields its events.
func (s *Session) Run(ctx context.Context, input any) iter.Seq2[agent.Event, error] {
	return s.run(ctx, input, nil)
}

// Invoke runs one turn and returns its result.
func (s *Session) Invoke(ctx context.Context, input any) (*Result, error) {
	var res Result
	if _, err := collect(s.run(ctx, input, &res)); err != nil {
		return nil, err
	}
	return &res, nil
}

func (s *Session) run(ctx context.Context, input any, res *Result) iter.Seq2[agent.Event, error] {
	return func(yield func(agent.Event, error) bool) {
		if !s.busy.CompareAndSwap(false, true) {
			failedRun(ctx, s.agent, ErrSessionBusy, yield)
			return
		}
		defer s.busy.Store(false)
		in, err := agent.EncodeInput(input)
		if err != nil {
			failedRun(ctx, s.agent, fmt.Errorf("engine: session: %w", err), yield)
			return
		}
		hist, err := s.memory.Messages(ctx, in)
		if err != nil {
			failedRun(ctx, s.agent, fmt.Errorf("engine: session memory: %w", err), yield)
			return
		}
		var r Result
		var root string
		for ev, err := range s.engine.run(agent.WithHistory(ctx, hist), s.agent, in, &r, nil) {
			if ev.Kind == agent.EventRunStart && root == "" {
				root = ev.RunID
			}
			if ev.Kind == agent.EventRunEnd && ev.RunID == root && err == nil {
				// The turn is kept before the run's end reaches the caller,
				// so a failure to keep it is the run's failure.
				if merr := s.memory.Add(ctx, Turn{Messages: turnMessages(in, ev)}); merr != nil {
					err = fmt.Errorf("engine: session memory: record the turn: %w", merr)
					ev.Err = err
				}
			}
			if !yield(ev, err) {
				break
			}
		}
		if res != nil {
			*res = r
		}
	}
}

// turnMessages is the turn a run adds to the conversation: the root run's
// messages, or for an agent that reports none, the input text and the
// output text as a user and an assistant message.
func turnMessages(in json.RawMessage, end agent.Event) []model.Message {
	if len(end.Messages) > 0 {
		return end.Messages
	}
	return []model.Message{model.UserMessage(flow.TextOf(in)), model.AssistantMessage(flow.TextOf(end.Output))}
}
