package agentrt

import (
	"context"

	"github.com/loomwork/loom/agent/internal/rtkey"
	"github.com/loomwork/loom/model"
)

// budget is what agentrt reads of a run tree's budget.
type budget interface {
	Usage() model.Usage
	Replayed() (model.Usage, float64)
}

// UsageFrom returns the tokens used so far by the run tree of ctx: under
// the budget of the nearest [github.com/loomwork/loom/agent.WithLimits],
// or, inside a run started without limits, its root run's. Zero outside
// both.
func UsageFrom(ctx context.Context) model.Usage {
	if b, ok := ctx.Value(rtkey.Budget{}).(budget); ok {
		return b.Usage()
	}
	return model.Usage{}
}

// ReplayedFrom returns the tokens and estimated US dollars, under the same
// budget as [UsageFrom], that a resumed run replayed from its journal
// rather than spent again: they are part of UsageFrom and of the runs'
// reported cost, and were paid for by the process that first ran those
// model calls. Zero without a budget or a journal.
func ReplayedFrom(ctx context.Context) (model.Usage, float64) {
	if b, ok := ctx.Value(rtkey.Budget{}).(budget); ok {
		return b.Replayed()
	}
	return model.Usage{}, 0
}
