package agent

import (
	"context"

	"github.com/loomwork/loom/model"
)

// Everything a run needs from its surroundings travels on ctx: the models
// to fall back on, limits and usage, hooks, the id source and the
// conversation history. The models, hooks, clock and prices are one value,
// the Env (see WithEnv); the limits, history and run each have their key.
type (
	historyKey struct{}
	runKey     struct{}
)

// resolveModel applies the precedence: the agent's own, the run's, the
// default.
func resolveModel(ctx context.Context, own model.Model) model.Model {
	if own != nil {
		return own
	}
	e := runEnvOf(ctx)
	switch {
	case e == nil:
		return nil
	case e.model != nil:
		return e.model
	}
	return e.defaultModel
}

// history is the conversation given to the next AI run directly beneath
// the run that set it.
type history struct {
	parent *Run
	msgs   []model.Message
}

// WithHistory returns ctx carrying earlier turns of a conversation for the
// run started with it, as a session gives them to its root run. The next
// AI agent run started with this ctx sends them, as real user, assistant and
// tool messages, between its instructions and the new input. Runs nested
// inside it do not see them. Inside a run, hand a child its conversation
// with [Run.ChildWithHistory] instead.
func WithHistory(ctx context.Context, msgs []model.Message) context.Context {
	return context.WithValue(ctx, historyKey{}, history{parent: runFrom(ctx), msgs: msgs})
}

// historyFor returns the history meant for a run whose parent is parent.
func historyFor(ctx context.Context, parent *Run) []model.Message {
	h, ok := ctx.Value(historyKey{}).(history)
	if !ok || h.parent != parent {
		return nil
	}
	return h.msgs
}

// CurrentRun returns the run whose body received ctx (or a ctx derived
// from it), or nil outside a run. A tool uses it to read the run that
// called it.
func CurrentRun(ctx context.Context) *Run { return runFrom(ctx) }

func runFrom(ctx context.Context) *Run {
	r, _ := ctx.Value(runKey{}).(*Run)
	return r
}
