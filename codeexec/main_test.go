package codeexec_test

import (
	"context"
	"testing"

	"github.com/loomwork/loom/agent"
	"github.com/loomwork/loom/compose"
	"github.com/loomwork/loom/sandbox"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	sandbox.ServeWorkerIfChild() // the isolated sandbox's workers are this test binary
	goleak.VerifyTestMain(m)
}

// fn returns a function agent over maps, for tests.
func fn(t testing.TB, name string, f func(ctx context.Context, in map[string]any) (map[string]any, error)) agent.Agent {
	t.Helper()
	a, err := agent.NewFunc(name, "Test agent "+name+".", f)
	require.NoError(t, err)
	return a
}

func newAI(t testing.TB, cfg agent.AIConfig) *agent.AI {
	t.Helper()
	a, err := agent.NewAI(cfg)
	require.NoError(t, err)
	return a
}

// events drains a stream, failing the test on an error.
func events(t testing.TB, stream func(func(agent.Event, error) bool)) []agent.Event {
	t.Helper()
	var evs []agent.Event
	for ev, err := range stream {
		require.NoError(t, err)
		evs = append(evs, ev)
	}
	return evs
}

// starts returns the agent names of the run starts, in order.
func starts(evs []agent.Event) []string {
	var names []string
	for _, ev := range evs {
		if ev.Kind == agent.EventRunStart {
			names = append(names, ev.Agent)
		}
	}
	return names
}
func reviewer(t *testing.T, verdicts ...compose.Review) (agent.Agent, *[]string) {
	var inputs []string
	i := 0
	return fn(t, "reviewer", func(_ context.Context, in map[string]any) (map[string]any, error) {
		inputs = append(inputs, in["message"].(string))
		v := verdicts[i]
		i++
		return map[string]any{"approved": v.Approved, "feedback": v.Feedback}, nil
	}), &inputs
}
