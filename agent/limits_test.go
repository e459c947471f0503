package agent_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/loomwork/loom/agent"

	"github.com/loomwork/loom/agent/agentrt"
	"github.com/loomwork/loom/internal/testkit"
	"github.com/loomwork/loom/model"
	"github.com/loomwork/loom/model/modeltest"
	"github.com/stretchr/testify/require"
)

func TestLimitMaxInvocations(t *testing.T) {
	// Each tool call is an agent run: the AI run plus two tool runs is three.
	m := modeltest.New(t,
		modeltest.ToolCalls(modeltest.Call("c1", "add", `{"a":1,"b":1}`)),
		modeltest.ToolCalls(modeltest.Call("c2", "add", `{"a":1,"b":1}`)),
		modeltest.Text("never"),
	)
	a := testkit.NewAI(t, agent.AIConfig{Name: "calc", Model: m, Tools: []agent.Agent{addTool(t)}, FailOnToolError: true})
	ctx, cancel := agent.WithLimits(t.Context(), agent.Limits{MaxInvocations: 2})
	defer cancel()
	_, err := agent.Invoke(ctx, a, "go")
	var le *agent.LimitError
	require.ErrorAs(t, err, &le)
	require.Equal(t, agent.LimitInvocations, le.Limit)
	require.ErrorContains(t, err, "max agent invocations exceeded: 3 invocations, limit 2")
}

func TestLimitMaxTokens(t *testing.T) {
	m := modeltest.New(t,
		modeltest.ToolCalls(modeltest.Call("c1", "add", `{"a":1,"b":1}`)).WithUsage(200, 100),
		modeltest.Text("never sent"),
	)
	a := testkit.NewAI(t, agent.AIConfig{Name: "calc", Model: m, Tools: []agent.Agent{addTool(t)}})
	ctx, cancel := agent.WithLimits(t.Context(), agent.Limits{MaxTokens: 200})
	defer cancel()
	_, err := agent.Invoke(ctx, a, "go")
	require.ErrorIs(t, err, agent.ErrLimit)
	require.EqualError(t, err, "max tokens exceeded: 300 used, limit 200")
	require.Equal(t, 1, m.Calls(), "the limit is checked before the second call")
	require.Equal(t, model.Usage{InputTokens: 200, OutputTokens: 100}, agentrt.UsageFrom(ctx))
}

func TestLimitTimeout(t *testing.T) {
	slow, err := agent.NewFunc("slow", "Sleeps until cancelled.", func(ctx context.Context, _ struct{}) (int, error) {
		<-ctx.Done()
		return 0, ctx.Err()
	})
	require.NoError(t, err)
	m := modeltest.New(t, modeltest.ToolCalls(modeltest.Call("c1", "slow", `{}`)), modeltest.Text("never"))
	a := testkit.NewAI(t, agent.AIConfig{Name: "waiter", Model: m, Tools: []agent.Agent{slow}})
	ctx, cancel := agent.WithLimits(t.Context(), agent.Limits{Timeout: 50 * time.Millisecond})
	defer cancel()
	start := time.Now()
	_, err = agent.Invoke(ctx, a, "go")
	require.Less(t, time.Since(start), 5*time.Second)
	var le *agent.LimitError
	require.ErrorAs(t, err, &le)
	require.Equal(t, agent.LimitTimeout, le.Limit)
	require.ErrorIs(t, err, context.DeadlineExceeded)
	require.Regexp(t, `^timeout exceeded: \d+ms elapsed, limit 50ms$`, err.Error())
}

func TestUsageAccumulatesAcrossNestedRuns(t *testing.T) {
	inner := testkit.NewAI(t, agent.AIConfig{Name: "inner", Description: "Inner helper.", Model: modeltest.New(t, modeltest.Text("inner answer").WithUsage(7, 3))})
	m := modeltest.New(t,
		modeltest.ToolCalls(modeltest.Call("c1", "inner", `{"message":"help"}`)).WithUsage(10, 2),
		modeltest.Text("outer answer").WithUsage(20, 4),
	)
	outer := testkit.NewAI(t, agent.AIConfig{Name: "outer", Model: m, Tools: []agent.Agent{inner}})
	var final agent.Event
	for ev, err := range outer.Run(t.Context(), []byte(`{"message":"go"}`)) {
		require.NoError(t, err)
		if ev.Kind == agent.EventRunEnd && ev.ParentID == "" {
			final = ev
		}
	}
	require.Equal(t, "outer", final.Agent)
	require.Equal(t, model.Usage{InputTokens: 37, OutputTokens: 9}, final.Usage)
}

func TestTimeoutErrorIsNotAPlainDeadlineWithoutLimits(t *testing.T) {
	m := modeltest.New(t, modeltest.Text("x"))
	a := testkit.NewAI(t, agent.AIConfig{Name: "x", Model: m})
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	_, err := agent.Invoke(ctx, a, "go")
	require.ErrorIs(t, err, context.Canceled)
	require.False(t, errors.Is(err, agent.ErrLimit))
}

func TestUsageFromRunWithoutLimits(t *testing.T) {
	// A root run started without WithLimits keeps its own budget; the
	// runs beneath it share it and read it through UsageFrom.
	var seen model.Usage
	peek, err := agent.NewFunc("peek", "Reads the usage so far.", func(ctx context.Context, _ struct{}) (int, error) {
		seen = agentrt.UsageFrom(ctx)
		return 0, nil
	})
	require.NoError(t, err)
	m := modeltest.New(t,
		modeltest.ToolCalls(modeltest.Call("c1", "peek", `{}`)).WithUsage(200, 100),
		modeltest.Text("done").WithUsage(10, 5),
	)
	a := testkit.NewAI(t, agent.AIConfig{Name: "reader", Model: m, Tools: []agent.Agent{peek}})
	_, err = agent.Invoke(t.Context(), a, "go")
	require.NoError(t, err)
	require.Equal(t, model.Usage{InputTokens: 200, OutputTokens: 100}, seen)
	require.Equal(t, model.Usage{}, agentrt.UsageFrom(t.Context()), "outside any run there is no budget")
}
