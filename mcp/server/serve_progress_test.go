package server

import (
	"context"
	"sync"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"

	"github.com/loomwork/loom/agent"
	"github.com/loomwork/loom/agent/agentrt"
	"github.com/loomwork/loom/model"
)

// TestReportProgressIncreases: a run's own progress reaches a client that
// sent a progress token, a value not above the last is dropped, and once
// the run reports its own, its events no longer count as steps.
func TestReportProgressIncreases(t *testing.T) {
	var sent []bool
	stepper, err := agent.NewFunc("stepper", "Reports progress", func(ctx context.Context, _ none) (string, error) {
		for _, p := range []float64{0, 50, 30, 50, 100} {
			sent = append(sent, ReportProgress(ctx, p, 100, "step"))
		}
		_, err := agent.CurrentRun(ctx).Call(ctx, mustFunc(t, "inner"), []byte(`{}`)) // its end is an event
		if err != nil {
			return "", err
		}
		return "done", nil
	})
	require.NoError(t, err)
	s, err := New(Config{Agents: []agent.Agent{stepper}})
	require.NoError(t, err)
	var mu sync.Mutex
	var got []float64
	cs := serveInMemory(t, s, &sdk.ClientOptions{ProgressNotificationHandler: func(_ context.Context, r *sdk.ProgressNotificationClientRequest) {
		mu.Lock()
		got = append(got, r.Params.Progress)
		mu.Unlock()
	}})
	res, err := cs.CallTool(t.Context(), &sdk.CallToolParams{Name: "stepper", Meta: sdk.Meta{"progressToken": "t1"}})
	require.NoError(t, err)
	require.False(t, res.IsError, "%+v", res.Content)
	require.Equal(t, []bool{true, true, false, false, true}, sent)
	require.Eventually(t, func() bool {
		mu.Lock()
		defer mu.Unlock()
		return len(got) >= 3
	}, 30*time.Second, 5*time.Millisecond, "a hang guard")
	mu.Lock()
	defer mu.Unlock()
	require.Equal(t, []float64{0, 50, 100}, got, "nothing after 100: the inner run's end is not a step")

	require.False(t, ReportProgress(t.Context(), 1, 2, "outside"), "outside a served run")
}

// TestSetResultContent: content a run sets replaces its result parts in
// the call's result, in its order; content added with AddContent follows.
func TestSetResultContent(t *testing.T) {
	a, err := agent.NewFunc("doc", "Answers with content", func(ctx context.Context, _ none) (string, error) {
		agentrt.SetResultParts(agent.CurrentRun(ctx), model.Text{Text: "a part, not sent"})
		SetResultContent(ctx, &sdk.EmbeddedResource{Resource: &sdk.ResourceContents{URI: "docs://a", Text: "A"}}, &sdk.TextContent{Text: "after"})
		AddContent(ctx, &sdk.TextContent{Text: "added"})
		return "", nil
	})
	require.NoError(t, err)
	s, err := New(Config{Agents: []agent.Agent{a}})
	require.NoError(t, err)
	cs := serveInMemory(t, s, nil)
	res, err := cs.CallTool(t.Context(), &sdk.CallToolParams{Name: "doc"})
	require.NoError(t, err)
	require.Equal(t, []sdk.Content{
		&sdk.EmbeddedResource{Resource: &sdk.ResourceContents{URI: "docs://a", Text: "A"}},
		&sdk.TextContent{Text: "after"},
		&sdk.TextContent{Text: "added"},
	}, res.Content)
	require.False(t, SetResultContent(t.Context()), "outside a served run")
}

func mustFunc(t *testing.T, name string) agent.Agent {
	t.Helper()
	a, err := agent.NewFunc(name, "Does nothing", func(context.Context, none) (string, error) { return "", nil })
	require.NoError(t, err)
	return a
}
