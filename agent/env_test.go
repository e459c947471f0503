package agent_test

import (
	"context"
	"testing"
	"time"

	"github.com/loomwork/loom/agent"

	"github.com/loomwork/loom/agent/agentrt"
	"github.com/loomwork/loom/model"
	"github.com/loomwork/loom/model/modeltest"
	"github.com/loomwork/loom/model/pricing"
	"github.com/stretchr/testify/require"
)

func TestWithEnvLayersModels(t *testing.T) {
	tests := []struct {
		name string
		envs func(outer, inner model.Model) []agent.Env
		want string
	}{
		{"model", func(o, _ model.Model) []agent.Env { return []agent.Env{{Model: o}} }, "outer"},
		{"default model", func(o, _ model.Model) []agent.Env { return []agent.Env{{DefaultModel: o}} }, "outer"},
		{"model before default", func(o, i model.Model) []agent.Env { return []agent.Env{{DefaultModel: o}, {Model: i}} }, "inner"},
		{"later model wins", func(o, i model.Model) []agent.Env { return []agent.Env{{Model: o}, {Model: i}} }, "inner"},
		{"empty fields keep what is above", func(o, _ model.Model) []agent.Env {
			return []agent.Env{{Model: o}, {Hooks: agent.Hooks{RunStart: func(context.Context, agent.HookEvent) {}}}}
		}, "outer"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			outer, inner := modeltest.New(t, modeltest.Text("outer")), modeltest.New(t, modeltest.Text("inner"))
			ai, err := agent.NewAI(agent.AIConfig{Name: "a"})
			require.NoError(t, err)
			ctx := t.Context()
			for _, e := range tt.envs(outer, inner) {
				ctx = agent.WithEnv(ctx, e)
			}
			out, err := agent.Invoke(ctx, ai, "hi")
			require.NoError(t, err)
			require.Equal(t, tt.want, outputText(t, out))
		})
	}
}

func TestWithEnvHooksAddUp(t *testing.T) {
	var fired []string
	hook := func(name string) agent.Hooks {
		return agent.Hooks{RunEnd: func(_ context.Context, e agent.HookEvent) { fired = append(fired, name+":"+e.Agent.Info().Name) }}
	}
	ctx := agent.WithEnv(t.Context(), agent.Env{Hooks: hook("outer")})
	ctx = agent.WithEnv(ctx, agent.Env{Model: modeltest.New(t, modeltest.Text("ok"))})
	ctx = agent.WithEnv(ctx, agent.Env{Hooks: hook("inner")})
	ai, err := agent.NewAI(agent.AIConfig{Name: "a"})
	require.NoError(t, err)
	_, err = agent.Invoke(ctx, ai, "hi")
	require.NoError(t, err)
	require.Equal(t, []string{"outer:a", "inner:a"}, fired)
}

func TestWithEnvClockAndPrices(t *testing.T) {
	at := time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)
	m := modeltest.New(t, modeltest.Text("ok").WithUsage(1_000_000, 0))
	prices := pricing.New(pricing.Entry{Provider: m.Provider(), Model: m.Name(), Price: pricing.Price{Input: 2.5}})
	ctx := agentrt.WithClock(agent.WithEnv(t.Context(), agent.Env{Model: m, Prices: prices}), agentrt.ClockFunc(func() time.Time { return at }))
	require.Equal(t, at, agentrt.Now(ctx))
	ai, err := agent.NewAI(agent.AIConfig{Name: "a"})
	require.NoError(t, err)
	var usages int
	for ev, err := range ai.Run(ctx, []byte(`{"message":"hi"}`)) {
		require.NoError(t, err)
		require.Equal(t, at, ev.Time, "event %s", ev.Kind)
		if ev.Kind == agent.EventUsage {
			usages++
			require.InDelta(t, 2.5, ev.Cost, 1e-9)
		}
	}
	require.Equal(t, 1, usages)
}
