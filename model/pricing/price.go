package pricing

import "github.com/loomwork/loom/model"

// Price is what a model charges, in US dollars per million tokens.
type Price struct {
	// Input is the price of a million prompt tokens not served from cache.
	Input float64 `json:"input"`
	// Output is the price of a million generated tokens (reasoning tokens
	// included, as providers bill them).
	Output float64 `json:"output"`
	// CachedInput is the price of a million prompt tokens read from the
	// provider's prompt cache. Zero means cached tokens are billed at Input.
	CachedInput float64 `json:"cached_input,omitempty"`
}

// Cost returns the price of u in US dollars. Cached input tokens are part of
// u.InputTokens (see [model.Usage]) and are billed at CachedInput when set.
func (p Price) Cost(u model.Usage) float64 {
	cached := min(max(u.CachedInputTokens, 0), max(u.InputTokens, 0))
	fresh := max(u.InputTokens, 0) - cached
	cachedPrice := p.CachedInput
	if cachedPrice == 0 {
		cachedPrice = p.Input
	}
	return (float64(fresh)*p.Input + float64(cached)*cachedPrice + float64(max(u.OutputTokens, 0))*p.Output) / 1e6
}

// IsFree reports whether every token is priced at zero, as for local models.
func (p Price) IsFree() bool { return p == Price{} }
