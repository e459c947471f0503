package engine_test

import (
	"testing"

	"github.com/loomwork/loom/agent"
	"github.com/loomwork/loom/engine"
	"github.com/loomwork/loom/model"
	"github.com/loomwork/loom/model/modeltest"
	"github.com/loomwork/loom/model/pricing"
	"github.com/stretchr/testify/require"
)

// pricedModel is the scripted model under a provider and name the price
// table knows.
type pricedModel struct{ *modeltest.Scripted }

func (pricedModel) Provider() string { return "openai" }
func (pricedModel) Name() string     { return "gpt-5.4-mini" }

func TestEngineCostPerRunAndTotal(t *testing.T) {
	m := pricedModel{modeltest.New(t,
		modeltest.Text("one").WithUsage(1_000_000, 0),
		modeltest.Text("two").WithUsage(0, 1_000_000),
	)}
	a, err := agent.NewAI(agent.AIConfig{Name: "a", Model: m})
	require.NoError(t, err)
	eng := engine.New()

	price, ok := pricing.Default().Lookup("openai", "gpt-5.4-mini")
	require.True(t, ok)
	first, err := eng.Invoke(t.Context(), a, "1")
	require.NoError(t, err)
	require.InDelta(t, price.Input, first.Cost, 1e-9, "a million input tokens cost the input price")
	second, err := eng.Invoke(t.Context(), a, "2")
	require.NoError(t, err)
	require.InDelta(t, price.Output, second.Cost, 1e-9)
	require.InDelta(t, price.Input+price.Output, eng.Stats().Cost, 1e-6, "the engine totals the runs' costs")
	require.Equal(t, model.Usage{InputTokens: 1_000_000, OutputTokens: 1_000_000}, eng.Usage())
}
