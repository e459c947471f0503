package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"runtime/debug"

	"github.com/loomwork/loom/model"
)

// Run is one execution of an agent, as its implementation sees it inside
// [Execute]: its ids, its input, and the way to emit events and call other
// agents.
type Run struct {
	ID       string
	ParentID string
	Agent    Agent
	Input    json.RawMessage

	parent   *Run
	yield    func(Event, error) bool
	stopped  bool        // the consumer stopped reading
	inYield  bool        // a panic now comes from the consumer, not the agent
	usage    model.Usage // own model calls plus ended child runs
	cost     float64     // estimated USD, like usage
	budget   *budget
	hooks    hookSet
	messages []model.Message    // an AI run's additions to the conversation
	finish   model.FinishReason // an AI run's last finish reason
}

// errStopped ends a run whose consumer stopped reading; it is never yielded.
var errStopped = errors.New("agent: consumer stopped")

// Body is the work of a run: it emits events through r and returns the
// run's output.
type Body func(ctx context.Context, r *Run) (json.RawMessage, error)

// Execute returns the event stream of running body as a run of a. It is how
// every agent implements Run: it assigns the run id and parent id, counts
// the invocation against the limits on ctx, fires the hooks on ctx (and a's
// own, when a has any), emits EventRunStart and EventRunEnd, totals usage
// over nested runs, turns a deadline under a timeout limit into a
// [LimitError], and turns a panic in body into an error wrapping [ErrPanic].
func Execute(ctx context.Context, a Agent, input json.RawMessage, body Body) iter.Seq2[Event, error] {
	return func(yield func(Event, error) bool) {
		parent := runFrom(ctx)
		b := budgetFrom(ctx)
		if b == nil {
			b = &budget{}
			ctx = context.WithValue(ctx, budgetKey{}, b)
		}
		r := &Run{ID: newID(ctx), Agent: a, Input: input, parent: parent, yield: yield, budget: b, hooks: hooksFrom(ctx)}
		if parent != nil {
			r.ParentID = parent.ID
		}
		if h, ok := a.(interface{ hooks() *Hooks }); ok && h.hooks() != nil {
			r.hooks = append(r.hooks[:len(r.hooks):len(r.hooks)], h.hooks())
		}
		ctx = context.WithValue(ctx, runKey{}, r)
		ctx, span := startAgentSpan(ctx, r)

		he := HookEvent{Agent: a, RunID: r.ID, ParentID: r.ParentID, Input: input}
		r.hooks.fire(ctx, pickRunStart, he)
		if !r.Emit(Event{Kind: EventRunStart, Input: input}) {
			endAgentSpan(ctx, span, r, nil, errStopped)
			return
		}
		var out json.RawMessage
		err := b.invoke()
		if err == nil {
			err = ctx.Err()
		}
		if err == nil {
			out, err = r.safely(ctx, body)
		}
		if r.stopped || errors.Is(err, errStopped) {
			endAgentSpan(ctx, span, r, nil, errStopped)
			return
		}
		if err != nil {
			err = b.asTimeout(err)
			out = nil
		}
		end := Event{Kind: EventRunEnd, Output: out, Usage: r.usage, Cost: r.cost, Err: err, Messages: r.messages, FinishReason: r.finish}
		he.Output, he.Err, he.Usage = out, err, r.usage
		if err != nil {
			r.hooks.fire(ctx, pickError, he)
		}
		r.hooks.fire(ctx, pickRunEnd, he)
		endAgentSpan(ctx, span, r, out, err)
		end.RunID, end.ParentID, end.Agent = r.ID, r.ParentID, a.Name()
		r.inYield = true
		yield(end, err)
		r.inYield = false
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
			err = fmt.Errorf("%w: %s: %v\n%s", ErrPanic, r.Agent.Name(), p, debug.Stack())
		}
	}()
	return body(ctx, r)
}

// Emit sends ev as an event of this run (its RunID, ParentID and Agent are
// filled in when empty) or passes on an event of a nested run. It returns
// false when the consumer has stopped reading; the body should then return
// promptly (any error it returns is dropped).
func (r *Run) Emit(ev Event) bool {
	if r.stopped {
		return false
	}
	if ev.RunID == "" {
		ev.RunID, ev.ParentID, ev.Agent = r.ID, r.ParentID, r.Agent.Name()
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

// Call runs child as a nested run of r, passing its events on, and returns
// its output. ctx must be the ctx the body received (or derived from it).
func (r *Run) Call(ctx context.Context, child Agent, input json.RawMessage) (json.RawMessage, error) {
	var out json.RawMessage
	var runErr error
	for ev, err := range child.Run(ctx, input) {
		if ev.Kind == EventRunEnd && ev.ParentID == r.ID {
			out, runErr = ev.Output, ev.Err
		}
		if ev.Kind != 0 && !r.Emit(ev) {
			return nil, errStopped
		}
		if err != nil {
			runErr = err
		}
	}
	return out, runErr
}

// Usage returns the tokens of the run so far, nested runs included.
func (r *Run) Usage() model.Usage { return r.usage }

// Cost returns the estimated cost of the run so far in US dollars, nested
// runs included.
func (r *Run) Cost() float64 { return r.cost }

// RecordUsage adds u to the run tree's budget, as one model call's usage
// with its estimated cost in US dollars, and emits it as an EventUsage of
// this run. It returns false when the consumer stopped reading.
func (r *Run) RecordUsage(u model.Usage, costUSD float64) bool {
	r.budget.add(u)
	return r.Emit(Event{Kind: EventUsage, Usage: u, Cost: costUSD})
}
