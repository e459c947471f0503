package agent

import (
	"context"

	"github.com/loomwork/loom/model"
	"github.com/loomwork/loom/model/pricing"
)

type pricesKey struct{}

// WithPrices returns ctx whose runs estimate cost from t instead of the
// built-in table of package pricing.
func WithPrices(ctx context.Context, t *pricing.Table) context.Context {
	return context.WithValue(ctx, pricesKey{}, t)
}

// priceOf estimates the cost of one call of m; known is false when the
// price table has no entry for it.
func priceOf(ctx context.Context, m model.Model, u model.Usage) (usd float64, known bool) {
	if t, ok := ctx.Value(pricesKey{}).(*pricing.Table); ok && t != nil {
		return t.Cost(m.Provider(), m.Name(), u)
	}
	return pricing.Cost(m.Provider(), m.Name(), u)
}
