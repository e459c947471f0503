package agent

import (
	"context"

	"github.com/loomwork/loom/model"
)

// Everything a run needs from its surroundings travels on ctx: the models
// to fall back on, limits and usage, hooks, the id source and the
// conversation history. Each is set with a With… function.
type (
	modelKey        struct{}
	defaultModelKey struct{}
	historyKey      struct{}
	runKey          struct{}
	hooksKey        struct{}
)

// WithModel returns ctx carrying the model for the runs beneath it. An AI
// agent uses its own model first, then this one, then the
// [WithDefaultModel] one.
func WithModel(ctx context.Context, m model.Model) context.Context {
	return context.WithValue(ctx, modelKey{}, m)
}

// WithDefaultModel returns ctx carrying the fallback model, as an engine
// sets its default.
func WithDefaultModel(ctx context.Context, m model.Model) context.Context {
	return context.WithValue(ctx, defaultModelKey{}, m)
}

// resolveModel applies the precedence: the agent's own, the run's, the
// default.
func resolveModel(ctx context.Context, own model.Model) model.Model {
	if own != nil {
		return own
	}
	if m, ok := ctx.Value(modelKey{}).(model.Model); ok && m != nil {
		return m
	}
	if m, ok := ctx.Value(defaultModelKey{}).(model.Model); ok && m != nil {
		return m
	}
	return nil
}

// history is the conversation given to the next AI run directly beneath
// the run that set it.
type history struct {
	parent *Run
	msgs   []model.Message
}

// WithHistory returns ctx carrying earlier turns of a conversation. The next
// AI agent run started with this ctx sends them, as real user, assistant and
// tool messages, between its instructions and the new input. Runs nested
// inside it do not see them.
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
