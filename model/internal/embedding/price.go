package embedding

import (
	"strings"

	"github.com/loomwork/loom/model"
	"github.com/loomwork/loom/model/pricing"
)

// Cost prices the input tokens of u: with the built-in price table of
// package pricing when it knows the model, else with list, a provider's
// embedding list prices in US dollars per million input tokens by model
// name ("name:tag" matches "name"). It reports false for an unknown model.
func Cost(provider, modelName string, u model.Usage, list map[string]float64) (float64, bool) {
	if usd, ok := pricing.Cost(provider, modelName, u); ok {
		return usd, true
	}
	name := strings.ToLower(strings.TrimPrefix(modelName, "models/"))
	name, _, _ = strings.Cut(name, ":")
	perMillion, ok := list[name]
	if !ok {
		return 0, false
	}
	return pricing.Price{Input: perMillion}.Cost(u), true
}
