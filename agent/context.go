package agent

import (
	"context"

	"github.com/loomwork/loom/model"
)

// Everything a run needs from its surroundings travels on ctx: the models
// to fall back on, limits and usage, hooks, the id source and the
// history of a root run. The models, hooks, clock, prices and a root run's
// history are one value, the Env (see WithEnv); the limits and the run each
// have their key.
type runKey struct{}

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

// CurrentRun returns the run whose body received ctx (or a ctx derived
// from it), or nil outside a run. A tool uses it to read the run that
// called it.
func CurrentRun(ctx context.Context) *Run { return runFrom(ctx) }

func runFrom(ctx context.Context) *Run {
	r, _ := ctx.Value(runKey{}).(*Run)
	return r
}
