package engine_test

import (
	"context"
	"testing"

	"github.com/loomwork/loom/agent"
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

// constant returns an agent that always outputs out.
func constant(t testing.TB, name string, out map[string]any) agent.Agent {
	return fn(t, name, func(context.Context, map[string]any) (map[string]any, error) { return out, nil })
}

func newAI(t testing.TB, cfg agent.AIConfig) *agent.AI {
	t.Helper()
	a, err := agent.NewAI(cfg)
	require.NoError(t, err)
	return a
}
