package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"runtime/debug"
	"strconv"

	"github.com/loomwork/loom/agent/internal/clock"
	"github.com/loomwork/loom/agent/internal/rtkey"
	"github.com/loomwork/loom/agent/internal/rtlink"
	"github.com/loomwork/loom/model"
)

// Run is one execution of an agent, as the body given to [New] sees it:
// its ids, its input and the agents it calls ([Run.Call]). What a
// composition or an engine does with a run beyond that (emit events, fan
// out, hand on a conversation, set its state) lives in package
// [github.com/loomwork/loom/agent/agentrt].
type Run struct {
	ID       string
	ParentID string
	Agent    Agent
	Input    json.RawMessage

	parent    *Run
	yield     func(Event, error) bool
	stopped   bool        // the consumer stopped reading
	inYield   bool        // a panic now comes from the consumer, not the agent
	usage     model.Usage // own model calls plus ended child runs
	cost      float64     // estimated USD, like usage
	budget    *budget
	ownBudget budget     // the budget of a root run started without one
	ctx       runContext // the context of the run's body
	hooks     hookSet
	messages  []model.Message // an AI run's additions to the conversation
	finish    model.FinishReason
	parts     []model.Part
	state     any
	seq       int64       // own events emitted
	children  int         // child run ids handed out
	questions int         // questions asked
	calls     int         // model calls made or replayed
	replay    *runLog     // the record a resumed run follows
	journal   *journal    // the journal a resumed run follows, or nil
	skips     []*lazyRuns // groups of ended runs skipped in part, not counted yet
	env       *runEnv     // the environment the run started in (WithEnv)
	clock     clock.Clock
	inl       inlineCall    // a guarded tool's request to run its tool inside it
	history   handedHistory // the conversation this run was handed
	handOn    handedHistory // the conversation for the next child run
	args      decodedArgs   // the input as a guarded tool decoded it, for its tool's body
}

// runContext is the context a run's body gets: its parent's with the run
// on it, as context.WithValue would make it, but held in the Run rather
// than allocated beside it.
type runContext struct {
	context.Context
	r *Run
}

// Value returns the run for runKey, the run's clock, budget and run-time
// view (runView) for their keys, and what the parent context holds for
// any other key.
func (c *runContext) Value(key any) any {
	switch key {
	case runKey{}:
		return c.r
	case clock.Key{}:
		return c.r.clock
	case rtkey.Budget{}:
		return c.r.budget
	case rtkey.Run{}:
		return runView{c.r}
	}
	return c.Context.Value(key)
}

// errStopped ends a run whose consumer stopped reading the stream
// (agentrt.ErrStopped). A body that sees it (from [Run.Call], or from
// agentrt.Emit returning false) returns it; it is never yielded.
var errStopped = rtlink.ErrStopped

// Body is the work of a run: it calls other agents through r
// ([Run.Call]) and returns the run's output.
type Body func(ctx context.Context, r *Run) (json.RawMessage, error)

// reservedID is a child run id a fan-out reserved, in job order, for the
// next run started beneath parent.
type reservedID struct {
	parent *Run
	id     string
}

type reservedKey struct{}

// execute returns the event stream of running body as a run of a. It is how
// every agent implements Run (agentrt.Execute for agents of other
// packages, [New] for a user's): it assigns the run id and parent id, counts
// the invocation against the limits on ctx, fires the hooks on ctx (and a's
// own, when a has any), emits EventRunStart and EventRunEnd, totals usage
// over nested runs, turns a deadline under a timeout limit into a
// [LimitError], and turns a panic in body into an error wrapping [ErrPanic].
// Under a resumed run's journal (agentrt.WithJournal), a run that had ended is replayed from
// its record instead of running body. The tool of a guarded tool
// ([GuardTool]) runs body inside the guarded tool's run.
func execute(ctx context.Context, a Agent, input json.RawMessage, body Body) iter.Seq2[Event, error] {
	return func(yield func(Event, error) bool) {
		parent := runFrom(ctx)
		if parent.runInline(ctx, input, body) {
			return
		}
		id := childID(ctx, parent)
		j := journalFrom(ctx)
		run := body // body itself is not reassigned: the closure would then hold it on the heap
		if j != nil {
			rec, ok, err := j.endedRecord(ctx, id)
			if ok && err == nil {
				j.noteReplayed(id, rec)
				budgetFrom(ctx).addReplayed(rec)
				if eo, ok := a.(endObserver); ok {
					eo.runEnded(input, recordedErr(rec, id))
				}
				replayEnded(rec, id, yield)
				return
			}
			if err != nil {
				run = func(context.Context, *Run) (json.RawMessage, error) { return nil, err }
			}
		}
		env := envFrom(ctx)
		r := newRun(ctx, parent)
		*r = Run{ID: id, Agent: a, Input: input, parent: parent, yield: yield, env: env, hooks: env.hookList(), clock: clock.From(ctx)}
		b := budgetFrom(ctx)
		if b == nil {
			// A root run without limits keeps its budget in itself; runs
			// beneath find it through the run (see budgetFrom).
			b = &r.ownBudget
		}
		r.budget = b
		if parent != nil {
			r.ParentID = parent.ID
			if parent.handOn.set { // written only when set: fanned-out children start concurrently
				r.history, parent.handOn = parent.handOn, handedHistory{}
			}
		} else {
			r.history = env.rootHistory()
		}
		if j != nil {
			r.replay, r.journal = j.replay(id), j
		}
		if h, ok := a.(interface{ hooks() *Hooks }); ok && h.hooks() != nil {
			r.hooks = append(r.hooks[:len(r.hooks):len(r.hooks)], h.hooks())
		}
		r.ctx = runContext{Context: ctx, r: r}
		// The body's context is a new variable: reassigning ctx, which the
		// closure captures, would move ctx to the heap on every run.
		rctx, span := startAgentSpan(&r.ctx, r)

		he := HookEvent{Agent: a, RunID: r.ID, ParentID: r.ParentID, Input: input}
		r.hooks.fire(rctx, pickRunStart, he)
		if !r.emit(Event{Kind: EventRunStart, Input: input}) {
			endAgentSpan(rctx, span, r, nil, errStopped)
			return
		}
		var out json.RawMessage
		err := b.invoke()
		if err == nil {
			err = rctx.Err()
		}
		if err == nil {
			out, err = r.safely(rctx, run)
		}
		if r.stopped || errors.Is(err, errStopped) {
			endAgentSpan(rctx, span, r, nil, errStopped)
			return
		}
		if err != nil {
			err = b.asTimeout(rctx, err)
			out = nil
		}
		end := Event{Kind: EventRunEnd, Output: out, Usage: r.usage, Cost: r.cost, Err: err, Messages: r.messages, FinishReason: r.finish, Parts: r.parts}
		he.Output, he.Err, he.Usage = out, err, r.usage
		if err != nil {
			r.hooks.fire(rctx, pickError, he)
		}
		r.hooks.fire(rctx, pickRunEnd, he)
		endAgentSpan(rctx, span, r, out, err)
		end.RunID, end.ParentID, end.Agent = r.ID, r.ParentID, a.Info().Name
		r.stamp(&end)
		if eo, ok := a.(endObserver); ok {
			eo.runEnded(input, err)
		}
		r.inYield = true
		yield(end, err)
		r.inYield = false
	}
}

// childID returns the id of a run starting beneath parent: a root id from
// the seam, a fan-out's reserved id, or the parent's next child id.
func childID(ctx context.Context, parent *Run) string {
	if parent == nil {
		if j := journalFrom(ctx); j != nil && j.rootID != "" {
			return j.rootID
		}
		return newRootID(ctx)
	}
	if res, ok := ctx.Value(reservedKey{}).(reservedID); ok && res.parent == parent {
		return res.id
	}
	return parent.nextChildID()
}

// nextChildID hands out the id of the run's next child.
func (r *Run) nextChildID() string {
	r.children++
	return r.ID + "." + strconv.Itoa(r.children)
}

// replayEnded yields the recorded events of an ended run and its nested
// runs again, marked Replayed; the run's end carries its recorded error.
func replayEnded(rec []Event, id string, yield func(Event, error) bool) {
	for _, ev := range rec {
		ev.Replayed = true
		var err error
		if ev.Kind == EventRunEnd && ev.RunID == id {
			err = ev.Err
		}
		if !yield(ev, err) {
			return
		}
	}
}

// safely runs body, turning a panic inside the agent into an error. A panic
// raised by the consumer's loop body (inside yield) is re-raised untouched.
func (r *Run) safely(ctx context.Context, body Body) (out json.RawMessage, err error) {
	defer func() {
		if p := recover(); p != nil {
			if r.inYield {
				panic(p)
			}
			err = fmt.Errorf("%w: %s: %v\n%s", ErrPanic, r.Agent.Info().Name, p, debug.Stack())
		}
	}()
	return body(ctx, r)
}

// stamp gives one of the run's own events its sequence number and time,
// or those of its record when a resumed run replays it.
func (r *Run) stamp(ev *Event) {
	if r.replay != nil && r.replay.match(ev) {
		r.seq = ev.Seq
		return
	}
	if r.replay != nil {
		r.seq = max(r.seq, r.replay.maxSeq)
	}
	r.seq++
	ev.Seq, ev.Time = r.seq, r.clock.Now()
}

// emit sends ev as an event of this run (its RunID, ParentID and Agent are
// filled in when empty, with its sequence number and time) or passes on an
// event of a nested run (agentrt.Emit). It returns false when the consumer
// has stopped reading; the body should then return errStopped promptly.
func (r *Run) emit(ev Event) bool {
	if r.stopped {
		return false
	}
	if ev.RunID == "" {
		ev.RunID, ev.ParentID, ev.Agent = r.ID, r.ParentID, r.Agent.Info().Name
		r.stamp(&ev)
	}
	switch {
	case ev.Kind == EventUsage && ev.RunID == r.ID, ev.Kind == EventRunEnd && ev.ParentID == r.ID:
		r.usage = r.usage.Add(ev.Usage)
		r.cost += ev.Cost
	}
	r.inYield = true
	ok := r.yield(ev, nil)
	r.inYield = false
	if !ok {
		r.stopped = true
	}
	return ok
}

// child runs child as a nested run of r (agentrt.Child), with the events
// passed to emit. It drains the child's
// stream with one childSink and its method value rather than a range loop,
// whose variables and state the compiler moves to the heap one by one:
// two allocations per nested run instead of five.
func (r *Run) child(ctx context.Context, child Agent, input json.RawMessage, emit func(Event) bool) (end Event, err error) {
	s := &childSink{parentID: r.ID, emit: emit}
	child.Run(ctx, input)(s.yield)
	if s.stopped {
		return Event{}, errStopped
	}
	return s.end, s.err
}

// childSink is what Run.child keeps while it passes a nested run's events
// on: the nested run's end and error.
type childSink struct {
	parentID string
	emit     func(Event) bool
	end      Event
	err      error
	ended    bool // end is the nested run's EventRunEnd
	stopped  bool // emit reported that the consumer stopped reading
}

// yield passes one event of the nested run's stream on.
func (s *childSink) yield(ev Event, e error) bool {
	if s.stopped {
		return false
	}
	if ev.Kind == EventRunEnd && ev.ParentID == s.parentID && !s.ended {
		s.end, s.err, s.ended = ev, ev.Err, true
	}
	if ev.Kind != 0 && !s.emit(ev) {
		s.stopped = true
		return false
	}
	if e != nil && !s.ended {
		s.err = e
	}
	return true
}

// Call runs child as a nested run of r, passing its events on from this
// goroutine, and returns the child's output, or the error it failed with.
// err is [github.com/loomwork/loom/agent/agentrt.ErrStopped] when the
// consumer stopped reading: return it. ctx must be the ctx the body
// received (or derived from it).
func (r *Run) Call(ctx context.Context, child Agent, input json.RawMessage) (json.RawMessage, error) {
	end, err := r.child(ctx, child, input, r.emit)
	return end.Output, err
}

// setResultParts sets parts of the run's result beyond its JSON output
// (agentrt.SetResultParts).
func (r *Run) setResultParts(parts ...model.Part) { r.parts = parts }

// setState sets the run's explicit state (agentrt.SetState).
func (r *Run) setState(s any) { r.state = s }

// recordUsage adds u to the run tree's budget, as one model call's usage
// with its estimated cost in US dollars, and emits it as an EventUsage of
// this run. It returns false when the consumer stopped reading.
func (r *Run) recordUsage(u model.Usage, costUSD float64) bool {
	r.budget.add(u)
	return r.emit(Event{Kind: EventUsage, Usage: u, Cost: costUSD})
}

// runView is what package agentrt reaches of a run through its context
// (the rtkey.Run key): the run-time operations a composition's engine
// needs and a user does not.
type runView struct{ r *Run }

// Of reports whether the view is of r.
func (v runView) Of(r *Run) bool { return v.r == r }

// SkipEnded moves the run past its ended nested runs (agentrt.SkipEnded).
func (v runView) SkipEnded(ctx context.Context) (Event, bool) { return v.r.skipEnded(ctx) }
