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

// priceOf estimates the cost of one call of m; 0 when the price is unknown.
func priceOf(ctx context.Context, m model.Model, u model.Usage) float64 {
	if u.IsZero() {
		return 0
	}
	if t, ok := ctx.Value(pricesKey{}).(*pricing.Table); ok && t != nil {
		usd, _ := t.Cost(m.Provider(), m.Name(), u)
		return usd
	}
	usd, _ := pricing.Cost(m.Provider(), m.Name(), u)
	return usd
}
