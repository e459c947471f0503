package engine_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/loomwork/loom/agent"
	"github.com/loomwork/loom/checkpoint"
	"github.com/loomwork/loom/engine"
	"github.com/loomwork/loom/internal/testkit"
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
	eng := engine.New(engine.Config{})

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

// TestStatsCountReplayedCallsOnce: a resumed run replays the model call it
// made before the pause; its result reports the whole run's usage and
// cost, and the engine's totals count each model call once.
func TestStatsCountReplayedCallsOnce(t *testing.T) {
	ctx := t.Context()
	confirm := testkit.Fn(t, "confirm", func(ctx context.Context, in map[string]any) (map[string]any, error) {
		ans, err := agent.Ask(ctx, "ok?", in, json.RawMessage(`{"type":"boolean"}`))
		if err != nil {
			return nil, err
		}
		return map[string]any{"ok": json.RawMessage(ans)}, nil
	})
	price, ok := pricing.Default().Lookup("openai", "gpt-5.4-mini")
	require.True(t, ok)

	for _, tc := range []struct {
		name    string
		resumer func(e *engine.Engine, store checkpoint.Store) *engine.Engine
		stats   engine.Stats
	}{
		{"the engine that paused resumes", func(e *engine.Engine, _ checkpoint.Store) *engine.Engine { return e }, engine.Stats{
			Runs: 2, Failed: 1, Usage: model.Usage{InputTokens: 1_000_000, OutputTokens: 1_000_000},
		}},
		{"another engine (a new process) resumes", func(_ *engine.Engine, store checkpoint.Store) *engine.Engine {
			return engine.New(engine.Config{Checkpoints: store})
		}, engine.Stats{Runs: 1, Usage: model.Usage{OutputTokens: 1_000_000}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := pricedModel{modeltest.New(t,
				modeltest.ToolCalls(modeltest.Call("c1", "confirm", `{}`)).WithUsage(1_000_000, 0),
				modeltest.Text("done").WithUsage(0, 1_000_000),
			)}
			a := testkit.NewAI(t, agent.AIConfig{Name: "asker", Model: m, Tools: []agent.Agent{confirm}})
			store := checkpoint.NewMemory()
			e := engine.New(engine.Config{Checkpoints: store})
			_, err := e.Invoke(ctx, a, "go")
			var ie *agent.InterruptedError
			require.ErrorAs(t, err, &ie)
			r := tc.resumer(e, store)
			res, err := r.ResumeInvoke(ctx, a, ie.Questions[0].Run, map[string]json.RawMessage{ie.Questions[0].ID: json.RawMessage(`true`)})
			require.NoError(t, err)
			require.Equal(t, "done", res.Text())
			require.Equal(t, 2, m.Calls(), "the first call was not repeated")
			require.Equal(t, model.Usage{InputTokens: 1_000_000, OutputTokens: 1_000_000}, res.Usage, "the result reports the whole run")
			require.InDelta(t, price.Input+price.Output, res.Cost, 1e-6)
			st := r.Stats()
			require.Equal(t, tc.stats.Usage, st.Usage, "each model call is counted once")
			require.Equal(t, tc.stats.Runs, st.Runs)
			require.Equal(t, tc.stats.Failed, st.Failed)
			wantUSD := float64(tc.stats.Usage.InputTokens)/1e6*price.Input + float64(tc.stats.Usage.OutputTokens)/1e6*price.Output
			require.InDelta(t, wantUSD, st.Cost, 1e-6)
		})
	}
}
