package engine

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"maps"
	"sync/atomic"

	"github.com/loomwork/loom/agent"

	"github.com/loomwork/loom/agent/agentrt"
	"github.com/loomwork/loom/checkpoint"
	"github.com/loomwork/loom/internal/flow"
	"github.com/loomwork/loom/model"
)

// Sentinels of sessions, for errors.Is.
var (
	// ErrSessionBusy marks a turn started while another turn of the same
	// session is still running.
	ErrSessionBusy = errors.New("session busy: a turn is already running; wait for it to end")
	// ErrTurnOpen marks a turn refused because the session's previous turn
	// is unfinished: it waits for answers, or its process stopped. The
	// error is an [*OpenTurnError].
	ErrTurnOpen = errors.New("the session's previous turn is unfinished")
	// ErrNoOpenTurn marks a [Session.Continue] or [Session.Resume] with no
	// such unfinished turn.
	ErrNoOpenTurn = errors.New("no unfinished turn")
)

// OpenTurnError is returned when a turn cannot start because the session's
// previous turn, run RunID, is unfinished. With Questions it waits for
// their answers ([Session.Resume]); without, its process stopped mid-way
// and [Session.Continue] finishes it. It wraps [ErrTurnOpen].
type OpenTurnError struct {
	SessionID string
	RunID     string
	Questions []agent.Question
}

// Error says which turn is open and how to finish it.
func (e *OpenTurnError) Error() string {
	if len(e.Questions) > 0 {
		return fmt.Sprintf("%s: session %s: turn run %s waits for %d answer(s) (%s): answer with Session.Resume", ErrTurnOpen.Error(), e.SessionID, e.RunID, len(e.Questions), e.Questions[0].ID)
	}
	return fmt.Sprintf("%s: session %s: turn run %s stopped before it ended: finish it with Session.Continue (or send the same input again)", ErrTurnOpen.Error(), e.SessionID, e.RunID)
}

// Unwrap returns [ErrTurnOpen].
func (e *OpenTurnError) Unwrap() error { return ErrTurnOpen }

// Session is a multi-turn conversation with one agent on an engine. Each
// turn sends the earlier turns kept by its [Memory] to the model as real
// user, assistant and tool messages (handed to the turn's root run as its history), and
// records the turn when it succeeds. Turns run one at a time.
//
// # Durable turns
//
// On an engine with checkpoints ([Config.Checkpoints]) each turn is a durable
// run whose checkpoints name the session (Meta [MetaSession]). A turn is
// recorded once, keyed by its run id: the run's end is saved first, then
// the turn is added to the memory, and a turn whose run ended but was not
// added (the process died in between) is added by the session's next
// call, in any process. With a [Stored] memory the session also writes,
// before a turn's run starts, which run the turn is, so that another
// process finds a turn left open:
//
//   - A turn that stopped for a question (an approval) is continued with
//     [Session.Resume] and the answers. The model calls after the answers
//     see the whole conversation, and the turn is recorded once.
//     [Engine.Resume] refuses such a run with [ErrSessionTurn].
//   - A turn whose process died mid-way is continued with
//     [Session.Continue], or by sending the same input again: the run is
//     resumed from its checkpoints, so no model call, tool call or code
//     run that had ended is repeated, and the run ends. A new input while
//     a turn is open fails with an [*OpenTurnError].
type Session struct {
	engine *Engine
	agent  agent.Agent
	memory Memory
	id     string
	busy   atomic.Bool
	open   *openTurn // the open turn, for a memory that does not keep it
}

// openTurn is a turn that started and was not recorded.
type openTurn struct {
	runID string
	input json.RawMessage
	// state, found by settle: unstarted (no checkpoint), waiting (for
	// questions) or stopped (its process stopped mid-way).
	state     string
	questions []agent.Question
}

// turnKeeper is a memory that keeps the open turn itself, so that other
// processes find it ([Stored]).
type turnKeeper interface {
	openTurn(ctx context.Context) (*openTurn, error)
	begin(ctx context.Context, t openTurn) error
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

// Run runs one turn and yields its events. When the previous turn's
// process stopped mid-way and input is that turn's input, the run
// continues it (see [Session.Continue]).
func (s *Session) Run(ctx context.Context, input any) iter.Seq2[agent.Event, error] {
	return s.turn(ctx, input, nil)
}

// Invoke runs one turn and returns its result.
func (s *Session) Invoke(ctx context.Context, input any) (*Result, error) {
	var res Result
	if _, err := collect(s.turn(ctx, input, &res)); err != nil {
		return nil, err
	}
	return &res, nil
}

// Resume continues the session's turn run runID, which stopped for
// questions, with answers keyed by question id, and yields its events, as
// [Engine.Resume] does for other runs. The model sees the conversation
// before the turn, and the turn is recorded once when it ends. Of two
// resumes of one state, one advances and the other fails with
// [ErrAlreadyResumed]. A runID that is not the session's open turn fails
// with [ErrNoOpenTurn], or [ErrRunEnded] when its turn has ended.
func (s *Session) Resume(ctx context.Context, runID string, answers map[string]json.RawMessage) iter.Seq2[agent.Event, error] {
	return s.resume(ctx, runID, answers, nil)
}

// ResumeInvoke is [Session.Resume] returning the turn's result.
func (s *Session) ResumeInvoke(ctx context.Context, runID string, answers map[string]json.RawMessage) (*Result, error) {
	var res Result
	if _, err := collect(s.resume(ctx, runID, answers, &res)); err != nil {
		return nil, err
	}
	return &res, nil
}

// Continue finishes the session's turn whose process stopped mid-way (a
// crash, a kill, a deploy) and returns its result. The run is resumed from
// its checkpoints: nothing that had ended runs again. A turn whose run had
// ended but was not recorded is recorded, and its recorded result
// returned. A turn waiting for answers fails with an [*OpenTurnError]
// listing them (answer with [Session.Resume]); with no unfinished turn,
// Continue fails with [ErrNoOpenTurn].
func (s *Session) Continue(ctx context.Context) (*Result, error) {
	if !s.busy.CompareAndSwap(false, true) {
		return nil, ErrSessionBusy
	}
	defer s.busy.Store(false)
	ot, done, err := s.settle(ctx)
	switch {
	case err != nil:
		return nil, err
	case done != nil:
		return &done.Result, nil
	case ot == nil:
		return nil, fmt.Errorf("%w: engine: session %s: every turn has ended", ErrNoOpenTurn, s.id)
	case ot.state == "waiting":
		return nil, &OpenTurnError{SessionID: s.id, RunID: ot.runID, Questions: ot.questions}
	}
	var res Result
	if _, err := collect(s.exec(ctx, ot, nil, &res)); err != nil {
		return nil, err
	}
	return &res, nil
}

func (s *Session) turn(ctx context.Context, input any, res *Result) iter.Seq2[agent.Event, error] {
	return func(yield func(agent.Event, error) bool) {
		if !s.busy.CompareAndSwap(false, true) {
			failedRun(ctx, s.agent, ErrSessionBusy, yield)
			return
		}
		defer s.busy.Store(false)
		in, err := agentrt.EncodeInput(input)
		if err != nil {
			failedRun(ctx, s.agent, fmt.Errorf("engine: session: %w", err), yield)
			return
		}
		ot, _, err := s.settle(ctx)
		if err != nil {
			failedRun(ctx, s.agent, err, yield)
			return
		}
		if ot != nil {
			if ot.state == "waiting" || !bytes.Equal(ot.input, in) {
				failedRun(ctx, s.agent, &OpenTurnError{SessionID: s.id, RunID: ot.runID, Questions: ot.questions}, yield)
				return
			}
			// The same input again: continue the turn that stopped.
			s.exec(ctx, ot, nil, res)(yield)
			return
		}
		ot = &openTurn{runID: newRunID(), input: in, state: "unstarted"}
		if k, ok := s.memory.(turnKeeper); ok && s.engine.store != nil {
			if err := k.begin(ctx, *ot); err != nil {
				failedRun(ctx, s.agent, fmt.Errorf("engine: session memory: record the turn's start: %w", err), yield)
				return
			}
		} else {
			s.open = ot
		}
		s.exec(ctx, ot, nil, res)(yield)
	}
}

func (s *Session) resume(ctx context.Context, runID string, answers map[string]json.RawMessage, res *Result) iter.Seq2[agent.Event, error] {
	return func(yield func(agent.Event, error) bool) {
		if !s.busy.CompareAndSwap(false, true) {
			failedRun(ctx, s.agent, ErrSessionBusy, yield)
			return
		}
		defer s.busy.Store(false)
		if s.engine.store == nil {
			failedRun(ctx, s.agent, fmt.Errorf("%w: engine: session %s: Resume needs an engine with checkpoints (engine.Config.Checkpoints)", ErrNoCheckpoints, s.id), yield)
			return
		}
		ot, done, err := s.settle(ctx)
		switch {
		case err != nil:
		case ot != nil && ot.runID == runID:
		case done != nil && done.runID == runID:
			err = fmt.Errorf("%w: engine: session %s: turn run %s ended; nothing to resume", ErrRunEnded, s.id, runID)
		case ot != nil:
			err = fmt.Errorf("%w: engine: session %s: run %s is not its open turn (run %s is)", ErrNoOpenTurn, s.id, runID, ot.runID)
		default:
			if head, herr := s.engine.store.Head(ctx, runID); herr == nil && head.Kind == CheckpointEnd && head.Meta[MetaSession] == s.id {
				err = fmt.Errorf("%w: engine: session %s: turn run %s ended at checkpoint %d; nothing to resume", ErrRunEnded, s.id, runID, head.Seq)
			} else {
				err = fmt.Errorf("%w: engine: session %s: run %s is not an unfinished turn of the session", ErrNoOpenTurn, s.id, runID)
			}
		}
		if err != nil {
			failedRun(ctx, s.agent, err, yield)
			return
		}
		s.exec(ctx, ot, answers, res)(yield)
	}
}

// settle looks at the session's open turn in the engine's checkpoints. It
// records a turn whose run ended but was not recorded, returning its
// result as done; it forgets a turn whose run failed; and it returns a
// turn still open with its state.
func (s *Session) settle(ctx context.Context) (ot *openTurn, done *recovered, err error) {
	k, keeps := s.memory.(turnKeeper)
	if keeps && s.engine.store != nil {
		if ot, err = k.openTurn(ctx); err != nil {
			return nil, nil, fmt.Errorf("engine: session memory: %w", err)
		}
	} else {
		ot = s.open
	}
	if ot == nil {
		return nil, nil, nil
	}
	if s.engine.store == nil {
		if s.open == ot && ot.state != "waiting" {
			s.open = nil
			return nil, nil, nil
		}
		return ot, nil, nil
	}
	head, err := s.engine.store.Head(ctx, ot.runID)
	switch {
	case errors.Is(err, checkpoint.ErrNotFound):
		ot.state = "unstarted"
		return ot, nil, nil
	case err != nil:
		return nil, nil, fmt.Errorf("engine: session %s: read turn run %s: %w", s.id, ot.runID, err)
	case head.Kind == CheckpointInterrupt:
		qs, err := s.engine.Pending(ctx, ot.runID)
		if err != nil {
			return nil, nil, err
		}
		ot.state, ot.questions = "waiting", qs
		return ot, nil, nil
	case head.Kind != CheckpointEnd:
		ot.state = "stopped"
		return ot, nil, nil
	}
	// The run ended: record its turn unless it failed.
	saved, err := s.engine.load(ctx, ot.runID)
	if err != nil {
		return nil, nil, err
	}
	var end *agent.Event
	for i := range saved.events {
		if ev := &saved.events[i]; ev.Kind == agent.EventRunEnd && ev.RunID == ot.runID {
			end = ev
		}
	}
	if s.open == ot {
		s.open = nil
	}
	if end == nil || end.Err != nil {
		return nil, nil, nil
	}
	if err := s.memory.Add(ctx, Turn{Messages: turnMessages(ot.input, *end), RunID: ot.runID}); err != nil {
		return nil, nil, fmt.Errorf("engine: session memory: record the turn of run %s: %w", ot.runID, err)
	}
	res := &recovered{Result: Result{Output: end.Output, Cost: end.Cost, Messages: end.Messages, FinishReason: end.FinishReason}, runID: ot.runID}
	return nil, res, nil
}

// recovered is the result of a turn whose run ended in an earlier process.
type recovered struct {
	Result
	runID string
}

// exec runs the open turn ot: from its start when it has no checkpoint,
// else resumed from them with answers. The model sees the conversation
// before the turn; the turn is recorded when the run succeeds.
func (s *Session) exec(ctx context.Context, ot *openTurn, answers map[string]json.RawMessage, res *Result) iter.Seq2[agent.Event, error] {
	return func(yield func(agent.Event, error) bool) {
		hist, err := s.memory.Messages(ctx, ot.input)
		if err != nil {
			failedRun(ctx, s.agent, fmt.Errorf("engine: session memory: %w", err), yield)
			return
		}
		e := s.engine
		var stream iter.Seq2[agent.Event, error]
		var r Result
		if ot.state == "unstarted" {
			var rc *recorder
			if e.store != nil {
				meta := maps.Clone(e.labels)
				if meta == nil {
					meta = map[string]string{}
				}
				meta[MetaSession] = s.id
				rc = &recorder{store: e.store, agent: s.agent.Info().Name, input: ot.input, meta: meta}
			}
			stream = e.run(agentrt.WithIDs(ctx, firstID(ot.runID)), s.agent, ot.input, &r, rc, hist)
		} else {
			rc, j, input, err := e.claimRun(ctx, s.agent, ot.runID, answers, s.id)
			if err != nil {
				failedRun(ctx, s.agent, err, yield)
				return
			}
			stream = e.run(agentrt.WithJournal(ctx, j), s.agent, input, &r, rc, hist)
		}
		for ev, err := range stream {
			if ev.Kind == agent.EventRunEnd && ev.RunID == ot.runID {
				var ie *agent.InterruptedError
				switch {
				case err == nil:
					// The run's end is saved; the turn is kept before the
					// end reaches the caller, so a failure to keep it is
					// the run's failure. Keyed by the run, it is kept once.
					if merr := s.memory.Add(ctx, Turn{Messages: turnMessages(ot.input, ev), RunID: ot.runID}); merr != nil {
						err = fmt.Errorf("engine: session memory: record the turn: %w", merr)
						ev.Err = err
					} else if s.open == ot {
						s.open = nil
					}
				case errors.As(err, &ie):
					ot.state, ot.questions = "waiting", ie.Questions
				case s.open == ot:
					s.open = nil
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

// newRunID returns a root run id in the form agent's default seam makes.
func newRunID() string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	b[0] |= 0x80
	return hex.EncodeToString(b[:])
}

// firstID is an id seam whose first root run gets id, and later ones
// (root runs a step starts on its own) random ids.
func firstID(id string) func() string {
	var used atomic.Bool
	return func() string {
		if used.CompareAndSwap(false, true) {
			return id
		}
		return newRunID()
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
