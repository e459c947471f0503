package graph_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/loomwork/loom/agent"
	"github.com/loomwork/loom/checkpoint"
	"github.com/loomwork/loom/graph"
	"github.com/stretchr/testify/require"
)

// The golden files hold checkpoints written by this format version. A
// change that breaks reading or resuming them fails here: keep old
// checkpoints resumable (or migrate them) before changing the format.
// LOOM_GRAPH_UPDATE_GOLDEN=1 rewrites them.

// goldenGraph is the graph the golden checkpoints belong to: a fan-out
// where one branch fails the first time, then a human approval.
func goldenGraph(t *testing.T, store checkpoint.Store, fail *atomic.Bool) *graph.Compiled[st] {
	g := graph.New[st](graph.Config{Name: "golden", Store: store}).
		Reducer("log", graph.Append()).Reducer("count", graph.Sum()).Reducer("tags", graph.Merge()).
		Node("left", func(_ context.Context, s st) (st, error) {
			s.Log = append(s.Log, "left")
			s.Count += 2
			s.Tags = map[string]int{"left": 1}
			return s, nil
		}).
		Node("right", func(_ context.Context, s st) (st, error) {
			if fail.Load() {
				return s, fmt.Errorf("right is down")
			}
			s.Log = append(s.Log, "right")
			s.Count += 3
			return s, nil
		})
	askNode(g, "approve")
	g.Edge(graph.START, "left").Edge(graph.START, "right").Join("approve", "left", "right").Edge("approve", graph.END)
	return compile(t, g)
}

func goldenCtx() context.Context {
	var n atomic.Int64
	ctx := agent.WithClock(context.Background(), agent.ClockFunc(func() time.Time {
		return time.Date(2026, 1, 1, 0, 0, int(n.Add(1)), 0, time.UTC)
	}))
	return agent.WithIDs(ctx, func() string { return "root" })
}

func TestGoldenCheckpointsResume(t *testing.T) {
	path := filepath.Join("testdata", "golden-v1.json")
	if os.Getenv("LOOM_GRAPH_UPDATE_GOLDEN") == "1" {
		store := checkpoint.NewMemory()
		var fail atomic.Bool
		fail.Store(true)
		c := goldenGraph(t, store, &fail)
		ctx := goldenCtx()
		_, err := c.Invoke(ctx, "failed", st{Topic: "golden"})
		require.Error(t, err)
		fail.Store(false)
		_, err = c.Invoke(ctx, "waiting", st{Topic: "golden"})
		require.ErrorIs(t, err, agent.ErrInterrupted)
		all := map[string][]checkpoint.Checkpoint{}
		for _, th := range []string{"failed", "waiting"} {
			all[th], err = store.List(ctx, th)
			require.NoError(t, err)
		}
		b, err := json.MarshalIndent(all, "", "  ")
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(path, append(b, '\n'), 0o644))
	}
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	var all map[string][]checkpoint.Checkpoint
	require.NoError(t, json.Unmarshal(b, &all))
	store := checkpoint.NewMemory()
	ctx := context.Background()
	for _, cps := range all {
		for _, cp := range cps {
			require.NoError(t, store.Put(ctx, cp))
		}
	}
	var fail atomic.Bool
	c := goldenGraph(t, store, &fail)

	// The failed thread kept left's writes; the resume runs right only.
	_, err = c.ResumeInvoke(ctx, "failed", nil)
	ie := interrupted(t, err)
	require.Equal(t, "failed:2:approve", ie.Questions[0].ID)
	out, err := c.ResumeInvoke(ctx, "failed", answer(ie, yes()))
	require.NoError(t, err)
	require.Equal(t, st{Topic: "golden", Log: []string{"left", "right", "approve=true"}, Count: 5, Tags: map[string]int{"left": 1}}, out)

	reqs, err := c.Pending(ctx, "waiting")
	require.NoError(t, err)
	require.Len(t, reqs, 1)
	require.JSONEq(t, `{"node":"approve","count":5}`, string(reqs[0].Payload))
	out, err = c.ResumeInvoke(ctx, "waiting", map[string]json.RawMessage{reqs[0].ID: json.RawMessage(`{"ok":false}`)})
	require.NoError(t, err)
	require.Equal(t, []string{"left", "right", "approve=false"}, out.Log)
}

func TestUnknownFormatIsRefused(t *testing.T) {
	ctx := context.Background()
	store := checkpoint.NewMemory()
	require.NoError(t, store.Put(ctx, checkpoint.Checkpoint{RunID: "x", Seq: 1, Time: time.Unix(1, 0), State: json.RawMessage(`{"format":"loom.graph/v99"}`)}))
	var fail atomic.Bool
	c := goldenGraph(t, store, &fail)
	_, err := c.ResumeInvoke(ctx, "x", nil)
	require.ErrorIs(t, err, graph.ErrFormat)
	require.ErrorContains(t, err, `format "loom.graph/v99"; this version reads "loom.graph/v1"`)
}
