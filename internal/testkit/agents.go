package testkit

import (
	"context"
	"iter"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/loomwork/loom/agent"
)

// Fn returns a function agent over maps named name.
func Fn(t testing.TB, name string, f func(ctx context.Context, in map[string]any) (map[string]any, error)) agent.Agent {
	t.Helper()
	a, err := agent.NewFunc(name, "Test agent "+name+".", f)
	require.NoError(t, err)
	return a
}

// Constant returns an agent named name that always outputs out.
func Constant(t testing.TB, name string, out map[string]any) agent.Agent {
	t.Helper()
	return Fn(t, name, func(context.Context, map[string]any) (map[string]any, error) { return out, nil })
}

// NewAI returns the AI agent cfg describes, failing t when it is invalid.
func NewAI(t testing.TB, cfg agent.AIConfig) *agent.AI {
	t.Helper()
	a, err := agent.NewAI(cfg)
	require.NoError(t, err)
	return a
}

// Events drains a stream, failing t on an error.
func Events(t testing.TB, stream iter.Seq2[agent.Event, error]) []agent.Event {
	t.Helper()
	var evs []agent.Event
	for ev, err := range stream {
		require.NoError(t, err)
		evs = append(evs, ev)
	}
	return evs
}

// Starts returns the agent names of the run starts in evs, in order.
func Starts(evs []agent.Event) []string {
	var names []string
	for _, ev := range evs {
		if ev.Kind == agent.EventRunStart {
			names = append(names, ev.Agent)
		}
	}
	return names
}
