package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"maps"

	"github.com/loomwork/loom/agent"

	"github.com/loomwork/loom/agent/agentrt"
	"github.com/loomwork/loom/checkpoint"
	"github.com/loomwork/loom/internal/flow"
	"github.com/loomwork/loom/model"
)

// Sentinels of durable runs, for errors.Is.
var (
	// ErrAlreadyResumed marks a Resume that lost the race: another resume
	// of the same saved state advanced the run first. It wraps
	// checkpoint.ErrConflict.
	ErrAlreadyResumed = errors.New("run already resumed from this checkpoint")
	// ErrUnknownQuestion marks an answer to a question the run did not ask.
	ErrUnknownQuestion = errors.New("unknown question")
	// ErrRunEnded marks a Resume of a run that already ended.
	ErrRunEnded = errors.New("run already ended")
	// ErrNoCheckpoints marks a durable operation on an engine without a
	// checkpoint store, or a run the store does not hold.
	ErrNoCheckpoints = errors.New("no checkpoints")
	// ErrSessionTurn marks an [Engine.Resume] of a run that is a session's
	// turn: it is resumed with [Session.Resume], which gives the model the
	// conversation and records the turn.
	ErrSessionTurn = errors.New("run is a session's turn")
	// ErrShutdown is the cause to cancel a run's context with
	// (context.WithCancelCause) when the process stops, not the run: a
	// server's graceful stop, a deploy. From then on the run writes no
	// checkpoint, so it is left as a crash leaves it, not ended: another
	// process continues it with [Engine.Resume] and no answers (or
	// [Session.Continue]), redoing only the step that was cut. A run
	// cancelled for another cause ends, failed.
	ErrShutdown = errors.New("the process is shutting down")
)

// MetaSession is the checkpoint Meta key that names the session a run is
// a turn of.
const MetaSession = "session"

// RunFormat is the format of the state loom saves in a run's checkpoints.
const RunFormat = "loom.run/v1"

// The kinds of a run's checkpoints.
const (
	CheckpointStart     = "start"     // the run started: agent and input
	CheckpointStep      = "step"      // a model call or a nested run ended
	CheckpointInterrupt = "interrupt" // the run waits for answers
	CheckpointResume    = "resume"    // answers were given; the run goes on
	CheckpointEnd       = "end"       // the run ended (Status says how)
)

// RunState is the state a run's checkpoints hold. The events since the
// previous checkpoint are saved beside it; together they are the run's
// journal ([agentrt.Journal]).
type RunState struct {
	Format    string                     `json:"format"`
	Agent     string                     `json:"agent"`
	Input     json.RawMessage            `json:"input,omitempty"`
	Status    string                     `json:"status"` // running, interrupted, done, failed
	Questions []agent.Question           `json:"questions,omitempty"`
	Answers   map[string]json.RawMessage `json:"answers,omitempty"`
	Error     *agent.ErrorRecord         `json:"error,omitempty"`
	// Snapshot, on an interrupt checkpoint, is the run's journal up to and
	// including that checkpoint, so that a resume reads one checkpoint
	// instead of the whole line. It is an optimisation: the checkpoints'
	// events stay the record, and a resume that cannot use it reads them.
	// Its encoding is the engine's own.
	Snapshot json.RawMessage `json:"snapshot,omitempty"`
	// SnapshotAt is, on a checkpoint after one that holds a Snapshot, the
	// Seq of the latest such checkpoint: a resume reads from it on.
	SnapshotAt int64 `json:"snapshot_at,omitempty"`
}

// CheckpointPolicy says when an engine with a checkpoint store
// ([Config.Checkpoints]) writes a run's checkpoints. Its zero value is
// [CheckpointEveryStep].
type CheckpointPolicy int

const (
	// CheckpointEveryStep, the default, writes a checkpoint when a run
	// starts, after every step, and when it ends or waits: a run whose
	// process died is resumed from its last step.
	CheckpointEveryStep CheckpointPolicy = iota
	// CheckpointAtInterrupts writes a run's checkpoints only when it waits
	// for answers (the interrupt checkpoint holds every event until then),
	// when it is resumed, and when a run that has checkpoints ends. A run
	// that never waits writes nothing. This is for a store that dies with
	// the process, as a server's in-memory store: there only the
	// checkpoint of a run that waits is ever read, and a kill loses the
	// rest anyway. A run killed mid-step cannot be resumed from its last
	// step; a run that waits is resumed as under CheckpointEveryStep.
	// The run holds its events in memory until it waits or ends. Session
	// turns ([Engine.OpenSession]) write every step whatever the policy:
	// a session finishes a turn cut by a kill from them.
	CheckpointAtInterrupts
)

// Checkpoints returns the engine's checkpoint store, or nil.
func (e *Engine) Checkpoints() checkpoint.Store { return e.store }

// recorder saves a run's events to the checkpoint store step by step.
type recorder struct {
	store checkpoint.Store
	runID string
	agent string
	input json.RawMessage
	meta  map[string]string // labels on every checkpoint (MetaSession)
	head  int64
	buf   []agent.Event
	// items are the run's journal so far, as saved, and answers every
	// answer given: what the snapshot saved with an interrupt holds.
	// snapAt is the Seq of the latest checkpoint holding a snapshot.
	// finish is the finish reason over the journal's events (see
	// Result.FinishReason), for a run that goes on from it.
	items   []item
	answers map[string]json.RawMessage
	snapAt  int64
	base    *snapBase // the snapshot at snapAt, when items mark what it holds
	finish  model.FinishReason
	// compactAt is the number of items at which the recorder next saves a
	// snapshot without an interrupt (0: at compactItems).
	compactAt int
	// lazy saves only at an interrupt of the root, and at its end once the
	// run has checkpoints ([CheckpointAtInterrupts]).
	lazy bool
}

// compactItems is how many journal items (about one per checkpoint) a
// recorder keeps before it saves a snapshot of a run that does not wait.
const compactItems = 512

// add records ev, saving a checkpoint when ev ends a step.
func (rc *recorder) add(ctx context.Context, ev agent.Event) error {
	if ctx.Err() != nil && errors.Is(context.Cause(ctx), ErrShutdown) {
		// What happens after a shutdown began (steps failing with the
		// cancellation, the run's end) is not the run's: it stops here.
		return nil
	}
	if ev.Replayed {
		return nil
	}
	if rc.runID == "" {
		rc.runID = ev.RunID
	}
	if ev.Kind == agent.EventRunEnd && ev.Messages != nil && errors.Is(ev.Err, agent.ErrInterrupted) {
		// A journal leaves an interrupted run's end out (the run goes on
		// past it), and the end it reaches carries its messages: saving
		// them at every interrupt too would make a run that waits M times
		// store its conversation M times.
		ev.Messages = nil
	}
	rc.buf = append(rc.buf, ev)
	if rc.lazy {
		return rc.addLazy(ctx, ev)
	}
	switch {
	case ev.Kind == agent.EventRunStart && ev.ParentID == "":
		return rc.save(ctx, CheckpointStart, RunState{Status: "running", Input: rc.input})
	case ev.Kind == agent.EventRunEnd && ev.ParentID == "":
		st := RunState{Status: "done"}
		kind := CheckpointEnd
		var ie *agent.InterruptedError
		switch {
		case errors.As(ev.Err, &ie):
			kind, st.Status, st.Questions = CheckpointInterrupt, "interrupted", ie.Questions
		case ev.Err != nil:
			st.Status, st.Error = "failed", agentrt.ErrorRecordOf(ev.Err)
		}
		return rc.save(ctx, kind, st)
	case ev.Kind == agent.EventModelResponse, ev.Kind == agent.EventRunEnd, ev.Kind == agent.EventInterrupt:
		return rc.save(ctx, CheckpointStep, RunState{Status: "running"})
	}
	return nil
}

// addLazy is add under [CheckpointAtInterrupts]: ev, already buffered,
// is saved with the events before it when it is the root's end and the
// run waits, or the run already has checkpoints to close.
func (rc *recorder) addLazy(ctx context.Context, ev agent.Event) error {
	if ev.Kind != agent.EventRunEnd || ev.ParentID != "" {
		return nil
	}
	var ie *agent.InterruptedError
	switch {
	case errors.As(ev.Err, &ie):
		st := RunState{Status: "interrupted", Questions: ie.Questions}
		if rc.head == 0 {
			st.Input = rc.input // the run's first checkpoint: what it started with
		}
		return rc.save(ctx, CheckpointInterrupt, st)
	case rc.head == 0:
		rc.buf = rc.buf[:0]
		return nil
	case ev.Err != nil:
		return rc.save(ctx, CheckpointEnd, RunState{Status: "failed", Error: agentrt.ErrorRecordOf(ev.Err)})
	default:
		return rc.save(ctx, CheckpointEnd, RunState{Status: "done"})
	}
}

// save writes the next checkpoint with the buffered events.
func (rc *recorder) save(ctx context.Context, kind string, st RunState) error {
	events, err := json.Marshal(rc.buf)
	if err != nil {
		return fmt.Errorf("engine: checkpoint run %s: encode events: %w", rc.runID, err)
	}
	st.Format, st.Agent = RunFormat, rc.agent
	rec := item{seq: rc.head + 1, raw: events, infos: make([]evInfo, len(rc.buf))}
	for i, ev := range rc.buf {
		rec.infos[i] = infoOf(ev)
	}
	// A snapshot goes with every interrupt, and with the checkpoint at
	// which the recorder holds compactItems entries (then twice as many as
	// it kept, and so on), so that a long run resumed after a kill reads a
	// bounded tail. It is an optimisation: when it cannot be made, the
	// resume reads the checkpoints.
	var grouped []item
	var base *snapBase
	periodic := kind != CheckpointEnd && len(rc.items)+1 >= max(rc.compactAt, compactItems)
	if kind == CheckpointInterrupt || periodic {
		if snap, items, b, err := makeSnapshot(append(rc.items[:len(rc.items):len(rc.items)], rec), rc.input, rc.answersWith(st.Answers), rc.base); err == nil {
			st.Snapshot, grouped, base = snap, items, b
		}
	}
	if st.Snapshot == nil && rc.snapAt > 0 {
		st.SnapshotAt = rc.snapAt
	}
	state, err := json.Marshal(st)
	if err != nil {
		return fmt.Errorf("engine: checkpoint run %s: encode state: %w", rc.runID, err)
	}
	cp := checkpoint.Checkpoint{
		RunID: rc.runID, Seq: rc.head + 1, Kind: kind, Time: agentrt.Now(ctx), State: state, Events: events,
		Meta: map[string]string{"agent": rc.agent, "status": st.Status},
	}
	for k, v := range rc.meta {
		cp.Meta[k] = v
	}
	if err := rc.store.Put(context.WithoutCancel(ctx), cp); err != nil {
		if errors.Is(err, checkpoint.ErrConflict) {
			return fmt.Errorf("%w: run %s: another process advanced it past checkpoint %d: %w", ErrAlreadyResumed, rc.runID, rc.head, err)
		}
		return fmt.Errorf("engine: checkpoint run %s: %w", rc.runID, err)
	}
	rc.head++
	rc.buf = rc.buf[:0]
	// After a snapshot the recorder keeps what ended as references to the
	// checkpoints written, and holds only the events of the runs that go
	// on.
	if grouped != nil {
		rc.items = grouped
	} else if len(rec.infos) > 0 {
		rc.items = append(rc.items, rec)
	}
	if periodic {
		rc.compactAt = max(len(rc.items)*2, compactItems)
	}
	if len(st.Answers) > 0 {
		rc.answers = rc.answersWith(st.Answers)
	}
	if st.Snapshot != nil {
		rc.snapAt, rc.base = rc.head, base
		base.seq = rc.head
	}
	return nil
}

// answersWith returns every answer given so far with more added.
func (rc *recorder) answersWith(more map[string]json.RawMessage) map[string]json.RawMessage {
	if len(more) == 0 {
		return rc.answers
	}
	all := maps.Clone(rc.answers)
	if all == nil {
		all = map[string]json.RawMessage{}
	}
	maps.Copy(all, more)
	return all
}

// Pending returns the questions run runID waits for, from the engine's
// checkpoint store.
func (e *Engine) Pending(ctx context.Context, runID string) ([]agent.Question, error) {
	s, err := e.load(ctx, runID)
	if err != nil {
		return nil, err
	}
	if s.head.Kind == CheckpointEnd {
		return nil, nil
	}
	return agentrt.NewJournal(s.events, s.answers).Pending(), nil
}

// Resume continues run runID of agent a from its checkpoints, with answers
// to its questions keyed by question id, and yields its events. Model
// calls, tool calls and code runs that had completed are not repeated:
// their recorded events are yielded again with Replayed set, and only the
// rest runs. A run whose process died (no question pending) is resumed the
// same way.
//
// Answers are checked first: an answer to a question the run did not ask
// fails with [ErrUnknownQuestion], one that does not match its schema with
// [agent.ErrInvalidAnswer], and nothing is written. Resume then claims the
// run's head checkpoint by compare-and-swap: of two resumes of the same
// state, one advances and the other fails with [ErrAlreadyResumed].
func (e *Engine) Resume(ctx context.Context, a agent.Agent, runID string, answers map[string]json.RawMessage) iter.Seq2[agent.Event, error] {
	return func(yield func(agent.Event, error) bool) {
		rc, j, input, err := e.claim(ctx, a, runID, answers)
		if err != nil {
			failedRun(ctx, a, err, yield)
			return
		}
		e.run(agentrt.WithJournal(ctx, j), a, input, nil, rc, nil)(yield)
	}
}

// ResumeInvoke is [Engine.Resume] returning the run's result.
func (e *Engine) ResumeInvoke(ctx context.Context, a agent.Agent, runID string, answers map[string]json.RawMessage) (*Result, error) {
	rc, j, input, err := e.claim(ctx, a, runID, answers)
	if err != nil {
		return nil, err
	}
	var res Result
	if _, err := collect(e.run(agentrt.WithJournal(ctx, j), a, input, &res, rc, nil)); err != nil {
		return nil, err
	}
	return &res, nil
}

// claim checks the answers and takes the head of a run that is not a
// session's turn.
func (e *Engine) claim(ctx context.Context, a agent.Agent, runID string, answers map[string]json.RawMessage) (*recorder, *agentrt.Journal, json.RawMessage, error) {
	return e.claimRun(ctx, a, runID, answers, "")
}

// claimRun checks the answers and takes the run's head. session is the
// session resuming the run, or "" for the engine's own Resume, which
// refuses a session's turn.
func (e *Engine) claimRun(ctx context.Context, a agent.Agent, runID string, answers map[string]json.RawMessage, session string) (*recorder, *agentrt.Journal, json.RawMessage, error) {
	if a == nil {
		return nil, nil, nil, fmt.Errorf("%w: engine: the agent to resume is nil", agent.ErrInvalidConfig)
	}
	s, err := e.load(ctx, runID)
	if err != nil {
		return nil, nil, nil, err
	}
	if s.start.Agent != a.Info().Name {
		return nil, nil, nil, fmt.Errorf("%w: engine: run %s is a run of agent %q, not %q: resume it with the agent it started with", agent.ErrInvalidConfig, runID, s.start.Agent, a.Info().Name)
	}
	if s.head.Kind == CheckpointEnd {
		return nil, nil, nil, fmt.Errorf("%w: engine: run %s ended at checkpoint %d; nothing to resume", ErrRunEnded, runID, s.head.Seq)
	}
	if owner := s.head.Meta[MetaSession]; owner != session {
		if session == "" {
			return nil, nil, nil, fmt.Errorf("%w: engine: run %s is a turn of session %q: resume it with the session's Resume (Engine.OpenSession(%q, agent).Resume), so that the model sees the conversation and the turn is recorded", ErrSessionTurn, runID, owner, owner)
		}
		return nil, nil, nil, fmt.Errorf("%w: engine: run %s is not a turn of session %q", ErrNoOpenTurn, runID, session)
	}
	asked := map[string]agent.Question{}
	for _, ev := range s.events {
		if ev.Kind == agent.EventInterrupt && ev.Question != nil {
			asked[ev.Question.ID] = *ev.Question
		}
	}
	for id, ans := range answers {
		// Answered questions come first: the asking run may have ended,
		// and a snapshot holds an ended run's events apart.
		if _, done := s.answers[id]; done {
			return nil, nil, nil, fmt.Errorf("%w: engine: question %q of run %s was answered before", ErrAlreadyResumed, id, runID)
		}
		q, ok := asked[id]
		if !ok {
			return nil, nil, nil, fmt.Errorf("%w: engine: run %s asked no question %q (it asked %s)", ErrUnknownQuestion, runID, id, questionIDs(asked))
		}
		if err := agentrt.CheckAnswer(q, ans); err != nil {
			return nil, nil, nil, err
		}
	}
	all := maps.Clone(s.answers)
	maps.Copy(all, answers)
	rc := &recorder{store: e.store, runID: runID, agent: a.Info().Name, input: s.start.Input, head: s.head.Seq, meta: map[string]string{},
		items: s.recorded(), answers: maps.Clone(s.answers), snapAt: s.snapAt, base: s.base, finish: s.finish,
		lazy: session == "" && e.policy == CheckpointAtInterrupts}
	for k, v := range s.head.Meta {
		if k != "agent" && k != "status" {
			rc.meta[k] = v // the run's labels and session
		}
	}
	if err := rc.save(ctx, CheckpointResume, RunState{Status: "running", Answers: answers}); err != nil {
		return nil, nil, nil, err
	}
	j := agentrt.NewJournal(s.events, all)
	j.AddEnded(s.ended...)
	return rc, j, s.start.Input, nil
}

func questionIDs(qs map[string]agent.Question) string {
	if len(qs) == 0 {
		return "none"
	}
	ids := make([]string, 0, len(qs))
	for id := range qs {
		ids = append(ids, fmt.Sprintf("%q", id))
	}
	return fmt.Sprint(ids)
}

// failedRun yields a run of a (or of a placeholder when a is nil) that
// fails with err at once, so that every stream, even one that could not
// start, keeps the contract of one EventRunStart and one EventRunEnd.
func failedRun(ctx context.Context, a agent.Agent, err error, yield func(agent.Event, error) bool) {
	if a == nil {
		a = placeholder{}
	}
	fail := func(context.Context, *agent.Run) (json.RawMessage, error) { return nil, err }
	agentrt.Execute(ctx, a, json.RawMessage(`{}`), fail)(yield)
}

// placeholder names a run whose agent was missing.
type placeholder struct{}

func (placeholder) Info() agent.Info {
	return agent.Info{Name: "engine", Description: "the engine, when it was given no agent", InputSchema: flow.AnyObject, OutputSchema: flow.AnyObject}
}

func (placeholder) Run(ctx context.Context, in json.RawMessage) iter.Seq2[agent.Event, error] {
	return agentrt.Execute(ctx, placeholder{}, in, func(context.Context, *agent.Run) (json.RawMessage, error) {
		return nil, fmt.Errorf("%w: engine: the agent to run is nil", agent.ErrInvalidConfig)
	})
}
