package graph_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/loomwork/loom/agent"
	"github.com/loomwork/loom/checkpoint"
	"github.com/loomwork/loom/compose"
	"github.com/loomwork/loom/engine"
	"github.com/loomwork/loom/graph"
	"github.com/loomwork/loom/internal/testkit"
	"github.com/stretchr/testify/require"
)

// TestEngineResumeContinuesTheGraph: a graph run by an engine, as its
// agent or as a step of a sequence, that stops at its questions is
// continued by the engine's resume from the graph's checkpoint: nodes that
// ran do not run again, a resume without the answers keeps it waiting, a
// second resume of one pause is refused, and the engine's run ends.
func TestEngineResumeContinuesTheGraph(t *testing.T) {
	for _, nested := range []bool{false, true} {
		name := "the engine's agent"
		if nested {
			name = "a step of a sequence"
		}
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			store := checkpoint.NewMemory()
			var charged, shipped, prepared atomic.Int32
			g := graph.New[st](graph.Config{Name: "order", Store: store}).Reducer("log", graph.Append()).
				Node("charge", counted(&charged, "charge"))
			askNode(g, "first")
			askNode(g, "second")
			g.Node("ship", counted(&shipped, "ship")).
				Edge(graph.START, "charge").Edge("charge", "first").Edge("first", "second").Edge("second", "ship").Edge("ship", graph.END)
			var a agent.Agent = compile(t, g)
			if nested {
				prep := testkit.Fn(t, "prep", func(_ context.Context, in map[string]any) (map[string]any, error) {
					prepared.Add(1)
					return map[string]any{"topic": "order 7"}, nil
				})
				seq, err := compose.NewSequence(compose.SequenceConfig{Name: "outer", Steps: []agent.Agent{prep, a}})
				require.NoError(t, err)
				a = seq
			}
			e := engine.New(engine.WithCheckpoints(store))

			_, err := e.Invoke(ctx, a, map[string]any{"topic": "order 7"})
			first := interrupted(t, err)
			require.Len(t, first.Questions, 1)
			runID := first.Questions[0].RootID

			_, err = e.ResumeInvoke(ctx, a, runID, nil)
			again := interrupted(t, err)
			require.Equal(t, first.Questions[0].ID, again.Questions[0].ID, "without its answer it asks again")

			_, err = e.ResumeInvoke(ctx, a, runID, answer(first, yes()))
			second := interrupted(t, err)
			require.NotEqual(t, first.Questions[0].ID, second.Questions[0].ID)
			_, err = e.ResumeInvoke(ctx, a, runID, answer(first, yes()))
			require.ErrorIs(t, err, engine.ErrAlreadyResumed)

			res, err := e.ResumeInvoke(ctx, a, runID, answer(second, json.RawMessage(`{"ok":false}`)))
			require.NoError(t, err)
			var out st
			require.NoError(t, res.Decode(&out))
			require.Equal(t, []string{"charge", "first=true", "second=false", "ship"}, out.Log)
			require.Equal(t, int32(1), charged.Load(), "charge ran once")
			require.Equal(t, int32(1), shipped.Load())
			if nested {
				require.Equal(t, int32(1), prepared.Load(), "the sequence's first step was replayed, not run")
			}
			cps, err := store.List(ctx, runID)
			require.NoError(t, err)
			require.Equal(t, engine.CheckpointEnd, cps[len(cps)-1].Kind, "the run that stopped has ended")
		})
	}
}

// TestGraphRunOnABusyThreadOutsideAResume: without an engine's resume, a
// run on a thread that waits is refused, as before.
func TestGraphRunOnABusyThreadOutsideAResume(t *testing.T) {
	ctx := context.Background()
	g := graph.New[st](graph.Config{}).Reducer("log", graph.Append())
	askNode(g, "ok")
	g.Edge(graph.START, "ok").Edge("ok", graph.END)
	c := compile(t, g)
	_, err := c.Invoke(ctx, "t", st{})
	interrupted(t, err)
	_, err = c.Invoke(ctx, "t", st{})
	require.ErrorIs(t, err, graph.ErrThreadBusy)
}

// losingStore is a checkpoint store whose engine checkpoints fail once
// the graph's thread has reached its end: a process that dies between the
// graph's last checkpoint and the engine's record of the graph's end.
type losingStore struct {
	checkpoint.Store
	lose atomic.Bool
}

func (s *losingStore) Put(ctx context.Context, cp checkpoint.Checkpoint) error {
	if !strings.HasSuffix(cp.RunID, "/graph") {
		if s.lose.Load() {
			return errors.New("the process died")
		}
		return s.Store.Put(ctx, cp)
	}
	if err := s.Store.Put(ctx, cp); err != nil {
		return err
	}
	if strings.Contains(string(cp.State), `"status":"done"`) {
		s.lose.Store(true)
	}
	return nil
}

// TestEngineResumeOfAGraphThatHadEnded: a graph that reached its end in a
// process that died before the engine recorded it is not run again by the
// engine's resume: the run ends with the graph's final state.
func TestEngineResumeOfAGraphThatHadEnded(t *testing.T) {
	ctx := context.Background()
	store := &losingStore{Store: checkpoint.NewMemory()}
	var charged atomic.Int32
	g := graph.New[st](graph.Config{Name: "order", Store: store}).Reducer("log", graph.Append()).
		Node("charge", counted(&charged, "charge")).
		Edge(graph.START, "charge").Edge("charge", graph.END)
	c := compile(t, g)
	e := engine.New(engine.WithCheckpoints(store))
	var runID string
	for ev := range e.Run(ctx, c, map[string]any{"topic": "order 7"}) {
		if runID == "" && ev.Kind == agent.EventRunStart {
			runID = ev.RunID
		}
	}
	require.True(t, store.lose.Load(), "the graph ended and the engine lost its record")
	require.Equal(t, int32(1), charged.Load())

	store.lose.Store(false)
	res, err := e.ResumeInvoke(ctx, c, runID, nil)
	require.NoError(t, err)
	var out st
	require.NoError(t, res.Decode(&out))
	require.Equal(t, []string{"charge"}, out.Log)
	require.Equal(t, int32(1), charged.Load(), "charge did not run again")
}

// TestEngineResumeOnAnotherThreadIsRefused: an engine's resume of a graph
// run under a thread other than the one it ran on is refused rather than
// starting the graph afresh and running its nodes again.
func TestEngineResumeOnAnotherThreadIsRefused(t *testing.T) {
	ctx := context.Background()
	store := checkpoint.NewMemory()
	var charged atomic.Int32
	g := graph.New[st](graph.Config{Name: "order", Store: store}).Reducer("log", graph.Append()).
		Node("charge", counted(&charged, "charge"))
	askNode(g, "ok")
	g.Edge(graph.START, "charge").Edge("charge", "ok").Edge("ok", graph.END)
	c := compile(t, g)
	e := engine.New(engine.WithCheckpoints(store))
	_, err := e.Invoke(graph.WithThread(ctx, "orders/7"), c, map[string]any{})
	ie := interrupted(t, err)

	_, err = e.ResumeInvoke(graph.WithThread(ctx, "orders/8"), c, ie.Questions[0].RootID, answer(ie, yes()))
	require.ErrorIs(t, err, graph.ErrNothingToResume)
	require.ErrorContains(t, err, `thread "orders/8" has no checkpoints`)
	require.Equal(t, int32(1), charged.Load(), "charge did not run again")

	require.ErrorIs(t, err, agent.ErrInterrupted, "the run stays paused")

	// The refused attempt's answer was recorded: the right thread goes on.
	res, err := e.ResumeInvoke(graph.WithThread(ctx, "orders/7"), c, ie.Questions[0].RootID, nil)
	require.NoError(t, err)
	var out st
	require.NoError(t, res.Decode(&out))
	require.Equal(t, []string{"charge", "ok=true"}, out.Log)
	require.Equal(t, int32(1), charged.Load())
}
