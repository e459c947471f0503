package agent

import (
	"context"

	"github.com/loomwork/loom/model"
	"github.com/loomwork/loom/model/pricing"
)

// Env is the environment of the runs started beneath a context: the
// models AI agents fall back on, the hooks every run fires and the price
// table. Set it with [WithEnv]; every field may be left zero.
// The limits of a run tree have their own setter, [WithLimits], which also
// returns the cancel function of its timeout.
type Env struct {
	// Model is the model of AI agents that have none of their own.
	Model model.Model
	// DefaultModel is the model of AI agents that have none of their own
	// when Model is not set either, as an engine sets its default.
	DefaultModel model.Model
	// Hooks fire for every run beneath, nested ones included, after the
	// hooks set higher up.
	Hooks Hooks
	// Prices estimates the cost of model calls. Nil means the built-in
	// table of package pricing.
	Prices *pricing.Table
	// History is the earlier turns of a conversation, handed to the root
	// run started beneath the context (a session's turn): an AI agent
	// sends them, as real user, assistant and tool messages, between its
	// instructions and the new input. Runs nested inside it do not see
	// them; inside a run, hand a child its conversation as an argument
	// with [github.com/loomwork/loom/agent/agentrt.ChildWithHistory]. Nil
	// keeps the history set higher up; an empty slice hands none.
	History []model.Message
}

// runEnv is the environment a context carries: one value, so that a run
// reads all of it with one lookup.
type runEnv struct {
	model, defaultModel model.Model
	hooks               []*Hooks
	prices              *pricing.Table
	history             []model.Message // for the root run
}

type envKey struct{}

// WithEnv returns ctx whose runs use env on top of the environment ctx
// already carries: each field env sets replaces the one set higher up
// (an AI agent's own model still comes first), and env's Hooks fire in
// addition to the hooks set higher up, which fire first.
func WithEnv(ctx context.Context, env Env) context.Context {
	next := runEnv{}
	if prev := envFrom(ctx); prev != nil {
		next = *prev
	}
	if env.Model != nil {
		next.model = env.Model
	}
	if env.DefaultModel != nil {
		next.defaultModel = env.DefaultModel
	}
	if env.Hooks.any() {
		h := env.Hooks
		next.hooks = append(next.hooks[:len(next.hooks):len(next.hooks)], &h)
	}
	if env.Prices != nil {
		next.prices = env.Prices
	}
	if env.History != nil {
		next.history = env.History
	}
	return context.WithValue(ctx, envKey{}, &next)
}

// envFrom returns the environment on ctx, or nil.
func envFrom(ctx context.Context) *runEnv {
	e, _ := ctx.Value(envKey{}).(*runEnv)
	return e
}

// runEnvOf returns the environment of the run ctx belongs to (read once
// when the run started), or the one on ctx outside a run.
func runEnvOf(ctx context.Context) *runEnv {
	if r := runFrom(ctx); r != nil {
		return r.env
	}
	return envFrom(ctx)
}

// rootHistory returns the history handed to a root run; nil-safe.
func (e *runEnv) rootHistory() handedHistory {
	if e == nil || e.history == nil {
		return handedHistory{}
	}
	return handedHistory{set: true, msgs: e.history}
}

// hookList returns the hooks of the environment; nil-safe.
func (e *runEnv) hookList() []*Hooks {
	if e == nil {
		return nil
	}
	return e.hooks
}

// any reports whether h has a hook set.
func (h *Hooks) any() bool {
	return h.RunStart != nil || h.RunEnd != nil || h.Error != nil || h.ToolStart != nil || h.ToolEnd != nil
}
