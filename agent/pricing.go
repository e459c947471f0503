package agent

import (
	"context"

	"github.com/loomwork/loom/model"
	"github.com/loomwork/loom/model/pricing"
)

// priceOf estimates the cost of one call of m; known is false when the
// price table of the run's [Env] (or the built-in one) has no
// entry for it.
func priceOf(ctx context.Context, m model.Model, u model.Usage) (usd float64, known bool) {
	if e := runEnvOf(ctx); e != nil && e.prices != nil {
		return e.prices.Cost(m.Provider(), m.Name(), u)
	}
	return pricing.Cost(m.Provider(), m.Name(), u)
}
