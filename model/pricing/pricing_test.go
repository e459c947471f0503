package pricing_test

import (
	"sync"
	"testing"

	"github.com/loomwork/loom/model"
	"github.com/loomwork/loom/model/pricing"
	"github.com/stretchr/testify/require"
)

func TestCostBuiltin(t *testing.T) {
	million := model.Usage{InputTokens: 1_000_000, OutputTokens: 1_000_000}
	tests := []struct {
		name            string
		provider, model string
		usage           model.Usage
		want            float64
		known           bool
	}{
		{"openai default", "openai", "gpt-4o-mini", million, 0.15 + 0.60, true},
		{"dated snapshot", "openai", "gpt-4o-mini-2024-07-18", million, 0.75, true},
		{"longest prefix wins", "openai", "gpt-4.1-mini-2025-04-14", million, 0.40 + 1.60, true},
		{"gpt-4o not gpt-4o-mini", "openai", "gpt-4o-2024-08-06", million, 2.50 + 10.00, true},
		{"case insensitive", "OpenAI", " GPT-4o ", million, 12.50, true},
		{"cached input discounted", "openai", "gpt-4o-mini",
			model.Usage{InputTokens: 1_000_000, CachedInputTokens: 400_000, OutputTokens: 0}, 0.6*0.15 + 0.4*0.075, true},
		{"anthropic latest alias", "anthropic", "claude-3-7-sonnet-latest", million, 18.00, true},
		{"anthropic dated", "anthropic", "claude-sonnet-4-5-20250929", million, 18.00, true},
		{"gemini", "gemini", "gemini-2.5-flash", million, 2.80, true},
		{"google alias", "google", "gemini-2.0-flash", million, 0.50, true},
		{"deepseek", "deepseek", "deepseek-chat", million, 0.70, true},
		{"xai latest", "xai", "grok-4-latest", million, 18.00, true},
		{"xai fast", "xai", "grok-4-fast-reasoning", million, 0.70, true},
		{"ollama free", "ollama", "llama3.2", million, 0, true},
		{"lmstudio free", "lmstudio", "qwen2.5-7b-instruct", million, 0, true},
		{"openrouter vendor prefix", "openrouter", "openai/gpt-4o", million, 12.50, true},
		{"unknown model", "openai", "my-finetune", million, 0, false},
		{"unknown provider", "acme", "gpt-4o", million, 0, false},
		{"no prefix without boundary", "openai", "gpt-4oops", million, 0, false},
		{"zero usage", "openai", "gpt-4o", model.Usage{}, 0, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, known := pricing.Cost(tc.provider, tc.model, tc.usage)
			require.Equal(t, tc.known, known)
			require.InDelta(t, tc.want, got, 1e-9)
			// The Default table must agree with the package function.
			got2, known2 := pricing.Default().Cost(tc.provider, tc.model, tc.usage)
			require.Equal(t, known, known2)
			require.InDelta(t, got, got2, 1e-12)
		})
	}
}

func TestPriceCost(t *testing.T) {
	tests := []struct {
		name  string
		price pricing.Price
		usage model.Usage
		want  float64
	}{
		{"cached at input price when unset", pricing.Price{Input: 2, Output: 4},
			model.Usage{InputTokens: 500_000, CachedInputTokens: 250_000, OutputTokens: 250_000}, 1.0 + 1.0},
		{"cached more than input is clamped", pricing.Price{Input: 2, CachedInput: 1},
			model.Usage{InputTokens: 100, CachedInputTokens: 1000}, 100 * 1.0 / 1e6},
		{"negative counts are ignored", pricing.Price{Input: 2, Output: 4},
			model.Usage{InputTokens: -5, OutputTokens: -5}, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			require.InDelta(t, tc.want, tc.price.Cost(tc.usage), 1e-12)
		})
	}
	require.True(t, pricing.Price{}.IsFree())
	require.False(t, pricing.Price{Output: 1}.IsFree())
}

func TestTableOverride(t *testing.T) {
	prices := pricing.Default()
	prices.Set("openai", "gpt-4o-mini", pricing.Price{Input: 1, Output: 1})
	prices.Set("acme", pricing.AnyModel, pricing.Price{Input: 10, Output: 10})

	usd, known := prices.Cost("openai", "gpt-4o-mini-2024-07-18", model.Usage{InputTokens: 1_000_000})
	require.True(t, known)
	require.InDelta(t, 1.0, usd, 1e-12)

	usd, known = prices.Cost("acme", "anything", model.Usage{OutputTokens: 500_000})
	require.True(t, known)
	require.InDelta(t, 5.0, usd, 1e-12)

	// Another Default table and the package function are unaffected.
	usd, _ = pricing.Default().Cost("openai", "gpt-4o-mini", model.Usage{InputTokens: 1_000_000})
	require.InDelta(t, 0.15, usd, 1e-12)
	usd, _ = pricing.Cost("openai", "gpt-4o-mini", model.Usage{InputTokens: 1_000_000})
	require.InDelta(t, 0.15, usd, 1e-12)
	_, known = pricing.Cost("acme", "anything", model.Usage{})
	require.False(t, known)
}

func TestZeroTableAndEntries(t *testing.T) {
	var prices pricing.Table
	_, known := prices.Lookup("openai", "gpt-4o")
	require.False(t, known)
	prices.Set("OpenAI", "GPT-X", pricing.Price{Input: 1})
	p, known := prices.Lookup("openai", "gpt-x")
	require.True(t, known)
	require.Equal(t, pricing.Price{Input: 1}, p)

	entries := pricing.New(
		pricing.Entry{Provider: "b", Model: "m2", Price: pricing.Price{Input: 2}},
		pricing.Entry{Provider: "b", Model: "m1", Price: pricing.Price{Input: 1}},
		pricing.Entry{Provider: "a", Model: "m", Price: pricing.Price{Output: 3}},
	).Entries()
	require.Equal(t, []pricing.Entry{
		{Provider: "a", Model: "m", Price: pricing.Price{Output: 3}},
		{Provider: "b", Model: "m1", Price: pricing.Price{Input: 1}},
		{Provider: "b", Model: "m2", Price: pricing.Price{Input: 2}},
	}, entries)

	// Every built-in provider has at least one entry, and every price is non-negative.
	seen := map[string]bool{}
	for _, e := range pricing.Default().Entries() {
		seen[e.Provider] = true
		require.GreaterOrEqual(t, e.Price.Input, 0.0, e)
		require.GreaterOrEqual(t, e.Price.Output, 0.0, e)
	}
	for _, p := range []string{"openai", "anthropic", "gemini", "google", "deepseek", "xai", "ollama", "lmstudio"} {
		require.True(t, seen[p], p)
	}
}

func TestTableConcurrentUse(t *testing.T) {
	prices := pricing.Default()
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			for j := range 200 {
				if i%2 == 0 {
					prices.Set("openai", "gpt-4o", pricing.Price{Input: float64(j)})
				} else {
					_, known := prices.Cost("openai", "gpt-4o", model.Usage{InputTokens: 1})
					require.True(t, known)
				}
			}
		})
	}
	wg.Wait()
}

func TestDefaultModelsArePriced(t *testing.T) {
	// The default model of every hosted provider loom registers has a price.
	for _, c := range []struct{ provider, model string }{
		{"openai", "gpt-5.4-mini"},
		{"openrouter", "openai/gpt-5.4-mini"},
		{"anthropic", "claude-sonnet-5-5"},
		{"gemini", "gemini-flash-latest"},
		{"xai", "grok-4.3"},
		{"deepseek", "deepseek-chat"},
		{"ollama", "llama3.2"},
	} {
		_, known := pricing.Cost(c.provider, c.model, model.Usage{InputTokens: 1000, OutputTokens: 1000})
		require.True(t, known, "%s:%s has no price", c.provider, c.model)
	}
	usd, _ := pricing.Cost("openai", "gpt-5.4-mini", model.Usage{InputTokens: 1_000_000, OutputTokens: 1_000_000})
	require.InDelta(t, 5.25, usd, 1e-9)
}
