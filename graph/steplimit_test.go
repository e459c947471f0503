package graph_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/loomwork/loom/agent/agentrt"
	"github.com/loomwork/loom/graph"
	"github.com/stretchr/testify/require"
)

// askLoopGraph runs "work", then asks, then works again, for ever: only
// its step limit ends it.
func askLoopGraph(t *testing.T, maxSteps int, work func(context.Context, st) (st, error)) *graph.Compiled[st] {
	g := graph.New[st](graph.Config{Name: "loop", MaxSteps: maxSteps}).Reducer("log", graph.Append()).
		Node("work", work)
	askNode(g, "ask").Edge(graph.START, "work").Edge("work", "ask").
		Branch("ask", func(context.Context, st) ([]string, error) { return []string{"work"}, nil }, "work", graph.END)
	return compile(t, g)
}

// A graph that keeps asking is stopped by its step limit, which counts
// the steps and node runs of every process of the run, not only those
// since the last resume; the error states the count and the limit.
func TestStepLimitCountsEveryResume(t *testing.T) {
	ctx := context.Background()
	cases := []struct {
		maxSteps int
		asks     int // answers before the limit
		runs     map[string]int
		next     string
	}{
		{maxSteps: 6, asks: 3, runs: map[string]int{"work": 3, "ask": 3}, next: "work"},
		{maxSteps: 7, asks: 3, runs: map[string]int{"work": 4, "ask": 3}, next: "ask"},
		{maxSteps: 12, asks: 6, runs: map[string]int{"work": 6, "ask": 6}, next: "work"},
	}
	for kind, store := range stores(t) {
		for _, tc := range cases {
			t.Run(fmt.Sprintf("%s/limit %d", kind, tc.maxSteps), func(t *testing.T) {
				c := askLoopGraph(t, tc.maxSteps, logNode("work"))
				e := durable(store)
				id := fmt.Sprintf("limit-%s-%d", kind, tc.maxSteps)
				_, err := runAs(ctx, e, c, id, st{})
				for range tc.asks {
					ie := interrupted(t, err)
					// A new engine for each resume: a process of its own.
					_, err = resumeAs(ctx, durable(store), c, id, answer(ie, yes()))
				}
				var le *graph.StepLimitError
				require.ErrorAs(t, err, &le, "the run stops at its limit after %d answers", tc.asks)
				require.ErrorIs(t, err, graph.ErrStepLimit)
				require.Equal(t, tc.maxSteps, le.Limit)
				require.Equal(t, tc.maxSteps, le.Steps)
				require.Equal(t, tc.runs, le.Runs, "the node runs of every process")
				require.Equal(t, []string{tc.next}, le.Next)
				require.ElementsMatch(t, []string{"work", "ask"}, le.Looping)
				require.ErrorContains(t, err, fmt.Sprintf("%d steps ran since the run started, the limit is %d", tc.maxSteps, tc.maxSteps))
				require.ErrorContains(t, err, fmt.Sprintf(`"work" (%d runs)`, tc.runs["work"]))
				require.ErrorContains(t, err, fmt.Sprintf(`"ask" (%d runs)`, tc.runs["ask"]))
				require.Nil(t, agentrt.Interrupts(err), "the run ended: it waits for nothing")
				qs, err := e.Pending(ctx, id)
				require.NoError(t, err)
				require.Empty(t, qs)
			})
		}
	}
}
