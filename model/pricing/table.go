package pricing

import (
	"maps"
	"slices"
	"strings"
	"sync"

	"github.com/loomwork/loom/model"
)

// AnyModel is the model name that prices every model of a provider that has
// no entry of its own, as for ollama and lmstudio, whose models run locally.
const AnyModel = "*"

// Entry is one row of a price table.
type Entry struct {
	Provider string `json:"provider"`
	Model    string `json:"model"`
	Price    Price  `json:"price"`
}

// Table maps provider and model names to prices. The zero value is an empty
// table ready to use; [Default] returns one filled with the built-in prices.
// A Table is safe for concurrent use.
type Table struct {
	mu     sync.RWMutex
	prices map[string]map[string]Price // provider → lower-case model → price
}

// New returns a table holding exactly entries.
func New(entries ...Entry) *Table {
	t := &Table{}
	for _, e := range entries {
		t.Set(e.Provider, e.Model, e.Price)
	}
	return t
}

// Default returns a new table filled with the built-in prices (see the
// package documentation). Each call returns a fresh copy, so changing it
// affects nobody else.
func Default() *Table {
	t := &Table{prices: make(map[string]map[string]Price, len(builtinPrices))}
	for provider, models := range builtinPrices {
		t.prices[provider] = maps.Clone(models)
	}
	return t
}

// Set adds or replaces the price of provider's model. Use [AnyModel] as the
// model to price every model of the provider without an entry of its own.
func (t *Table) Set(provider, modelName string, p Price) {
	provider, modelName = strings.ToLower(strings.TrimSpace(provider)), strings.ToLower(strings.TrimSpace(modelName))
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.prices == nil {
		t.prices = map[string]map[string]Price{}
	}
	if t.prices[provider] == nil {
		t.prices[provider] = map[string]Price{}
	}
	t.prices[provider][modelName] = p
}

// Lookup returns the price of provider's model; see the package
// documentation for how names are matched. It reports false when the table
// has no price for it.
func (t *Table) Lookup(provider, modelName string) (Price, bool) {
	provider, modelName = strings.ToLower(strings.TrimSpace(provider)), strings.ToLower(strings.TrimSpace(modelName))
	t.mu.RLock()
	defer t.mu.RUnlock()
	return lookup(t.prices, provider, modelName)
}

// lookup resolves lower-case provider and model names in prices.
func lookup(prices map[string]map[string]Price, provider, modelName string) (Price, bool) {
	if p, ok := lookupIn(prices[provider], modelName); ok {
		return p, true
	}
	// "openrouter" + "openai/gpt-4o": try the vendor named in the model id.
	if vendor, rest, ok := strings.Cut(modelName, "/"); ok && vendor != provider {
		if p, ok := lookupIn(prices[vendor], rest); ok {
			return p, true
		}
	}
	return Price{}, false
}

// Cost returns the estimated cost of u in US dollars for provider's model,
// and whether the table knows its price. An unknown model costs 0, false.
func (t *Table) Cost(provider, modelName string, u model.Usage) (usd float64, known bool) {
	p, ok := t.Lookup(provider, modelName)
	if !ok {
		return 0, false
	}
	return p.Cost(u), true
}

// Entries returns every row of the table, sorted by provider then model.
func (t *Table) Entries() []Entry {
	t.mu.RLock()
	defer t.mu.RUnlock()
	var out []Entry
	for _, provider := range slices.Sorted(maps.Keys(t.prices)) {
		models := t.prices[provider]
		for _, m := range slices.Sorted(maps.Keys(models)) {
			out = append(out, Entry{Provider: provider, Model: m, Price: models[m]})
		}
	}
	return out
}

// lookupIn finds name exactly, else the longest listed name that name starts
// with at a boundary, else the provider's AnyModel entry.
func lookupIn(models map[string]Price, name string) (Price, bool) {
	if models == nil {
		return Price{}, false
	}
	if p, ok := models[name]; ok {
		return p, true
	}
	best, found := "", false
	for m := range models {
		if m == AnyModel || len(m) <= len(best) || !strings.HasPrefix(name, m) {
			continue
		}
		switch name[len(m)] {
		case '-', ':', '@':
			best, found = m, true
		}
	}
	if found {
		return models[best], true
	}
	p, ok := models[AnyModel]
	return p, ok
}

// Cost prices u for provider's model with the built-in table. It reports
// false when the model is not in the table; see [Table.Cost] to use your own
// prices.
func Cost(provider, modelName string, u model.Usage) (usd float64, known bool) {
	p, ok := lookup(builtinPrices, strings.ToLower(strings.TrimSpace(provider)), strings.ToLower(strings.TrimSpace(modelName)))
	if !ok {
		return 0, false
	}
	return p.Cost(u), true
}
