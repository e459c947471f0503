package graph_test

import (
	"context"
	"encoding/json"
	"fmt"
	"sync/atomic"
	"testing"

	"github.com/loomwork/loom/agent"
	"github.com/loomwork/loom/checkpoint"
	"github.com/loomwork/loom/graph"
	"github.com/stretchr/testify/require"
)

func TestHistoryStateAtAndForkWithEdit(t *testing.T) {
	ctx := context.Background()
	g := graph.New[st](graph.Config{}).Reducer("log", graph.Append()).Reducer("count", graph.Sum()).
		Node("a", logNode("a")).Node("b", logNode("b")).Node("c", logNode("c")).
		Edge(graph.START, "a").Edge("a", "b").Edge("b", "c").Edge("c", graph.END)
	c := compile(t, g)
	_, err := c.Invoke(ctx, "main", st{Topic: "t"})
	require.NoError(t, err)
	hist, err := c.History(ctx, "main")
	require.NoError(t, err)
	require.Len(t, hist, 4)
	require.Equal(t, []int{0, 1, 2, 3}, []int{hist[0].Step, hist[1].Step, hist[2].Step, hist[3].Step})
	require.Equal(t, graph.StatusDone, hist[3].Status)

	// Travel back to after "a" and change the state: b and c run on it.
	snap, err := c.StateAt(ctx, "main", 2)
	require.NoError(t, err)
	require.Equal(t, []string{"a"}, snap.State.Log)
	require.Equal(t, []string{"b"}, snap.Next)
	forked, err := c.Fork(ctx, "main", 2, "alt", func(s st) (st, error) {
		s.Log = append(s.Log, "edited")
		s.Count = 100
		return s, nil
	})
	require.NoError(t, err)
	require.Equal(t, "fork", forked.Kind)
	require.Equal(t, int64(3), forked.Seq)
	out, err := c.ResumeInvoke(ctx, "alt", nil)
	require.NoError(t, err)
	require.Equal(t, []string{"a", "edited", "b", "c"}, out.Log)
	require.Equal(t, 102, out.Count)

	orig, err := c.StateAt(ctx, "main", 0)
	require.NoError(t, err)
	require.Equal(t, []string{"a", "b", "c"}, orig.State.Log)
	require.Equal(t, 3, orig.State.Count)

	_, err = c.Fork(ctx, "main", 9, "other", nil)
	require.ErrorContains(t, err, "it has checkpoints 1 to 4")
	_, err = c.Fork(ctx, "main", 1, "alt", nil)
	require.ErrorContains(t, err, "a new thread is needed")
	_, err = c.StateAt(ctx, "nope", 0)
	require.Error(t, err)
}

func TestAgentNodeOutputIsKeptAcrossARerun(t *testing.T) {
	ctx := context.Background()
	var calls, failOut atomic.Int32
	echo, err := agent.NewFunc("echo", "echoes", func(_ context.Context, in struct {
		Message string `json:"message"`
	}) (map[string]string, error) {
		calls.Add(1)
		return map[string]string{"message": "echo: " + in.Message}, nil
	})
	require.NoError(t, err)
	g := graph.New[st](graph.Config{}).
		AgentNode("call", echo, func(s st) (any, error) { return s.Topic, nil },
			func(s st, out json.RawMessage) (st, error) {
				if failOut.Add(1) == 1 {
					return s, fmt.Errorf("mapping failed once")
				}
				var m map[string]string
				err := json.Unmarshal(out, &m)
				s.Out = m["message"]
				return s, err
			}).
		Edge(graph.START, "call").Edge("call", graph.END)
	c := compile(t, g)
	_, err = c.Invoke(ctx, "a", st{Topic: "hi"})
	require.ErrorContains(t, err, "mapping failed once")
	out, err := c.ResumeInvoke(ctx, "a", nil)
	require.NoError(t, err)
	require.Equal(t, "echo: hi", out.Out)
	require.Equal(t, int32(1), calls.Load(), "the agent ran once")
}

func TestAgentNodeThatAsksFails(t *testing.T) {
	asker, err := agent.NewFunc("asker", "asks", func(ctx context.Context, _ struct{}) (struct{}, error) {
		_, err := agent.Ask(ctx, "input", nil, nil)
		return struct{}{}, err
	})
	require.NoError(t, err)
	c := compile(t, graph.New[st](graph.Config{}).
		AgentNode("ask", asker, func(st) (any, error) { return struct{}{}, nil }, func(s st, _ json.RawMessage) (st, error) { return s, nil }).
		Edge(graph.START, "ask").Edge("ask", graph.END))
	_, err = c.Invoke(context.Background(), "q", st{})
	require.ErrorContains(t, err, "ask through a graph.Ask node")
	require.Nil(t, agent.Interrupts(err), "the graph does not wait")
	var ne *graph.NodeError
	require.ErrorAs(t, err, &ne)
}

func TestAskInsideAFuncNodeFails(t *testing.T) {
	c := compile(t, graph.New[st](graph.Config{}).
		Node("inline", func(ctx context.Context, s st) (st, error) {
			_, err := agent.Ask(ctx, "input", nil, nil)
			return s, err
		}).
		Edge(graph.START, "inline").Edge("inline", graph.END))
	_, err := c.Invoke(context.Background(), "q", st{})
	require.ErrorContains(t, err, "a graph asks through graph.Ask nodes")
	require.Nil(t, agent.Interrupts(err), "the graph does not wait")
}

// A sub-graph that ended is not run again when its parent's step is: the
// parent picks up the sub-graph's final state from its thread.
func TestSubGraphThatEndedIsNotRunAgain(t *testing.T) {
	ctx := context.Background()
	var inner, mapped atomic.Int32
	store := checkpoint.NewMemory()
	sub := compile(t, graph.New[st](graph.Config{Name: "sub", Store: store}).Reducer("log", graph.Append()).
		Node("work", counted(&inner, "work")).Edge(graph.START, "work").Edge("work", graph.END))
	pg := graph.New[st](graph.Config{Name: "parent", Store: store}).Reducer("log", graph.Append())
	graph.SubGraph(pg, "child", sub, func(s st) (st, error) { return st{}, nil }, func(s st, r st) (st, error) {
		if mapped.Add(1) == 1 {
			return s, fmt.Errorf("mapping failed once")
		}
		s.Log = append(s.Log, r.Log...)
		return s, nil
	})
	c := compile(t, pg.Edge(graph.START, "child").Edge("child", graph.END))
	_, err := c.Invoke(ctx, "p", st{})
	require.ErrorContains(t, err, "mapping failed once")
	out, err := c.ResumeInvoke(ctx, "p", nil)
	require.NoError(t, err)
	require.Equal(t, []string{"work"}, out.Log)
	require.Equal(t, int32(1), inner.Load())
}

func TestPanickingNodeFailsTheStep(t *testing.T) {
	c := compile(t, graph.New[st](graph.Config{}).Reducer("log", graph.Append()).
		Node("boom", func(context.Context, st) (st, error) { panic("kaboom") }).
		Node("fine", logNode("fine")).
		Edge(graph.START, "boom").Edge(graph.START, "fine").Edge("boom", graph.END).Edge("fine", graph.END))
	_, err := c.Invoke(context.Background(), "p", st{})
	require.ErrorIs(t, err, agent.ErrPanic)
	require.ErrorContains(t, err, "kaboom")
	snap, err := c.StateAt(context.Background(), "p", 0)
	require.NoError(t, err)
	require.Equal(t, graph.StatusFailed, snap.Status)
}

func TestThreadOfAnotherGraphIsRefused(t *testing.T) {
	ctx := context.Background()
	store := checkpoint.NewMemory()
	one := compile(t, graph.New[st](graph.Config{Name: "one", Store: store}).Node("a", logNode("a")).Edge(graph.START, "a").Edge("a", graph.END))
	two := compile(t, graph.New[st](graph.Config{Name: "two", Store: store}).Node("a", logNode("a")).Edge(graph.START, "a").Edge("a", graph.END))
	_, err := one.Invoke(ctx, "shared", st{})
	require.NoError(t, err)
	_, err = two.Invoke(ctx, "shared", st{})
	require.ErrorContains(t, err, `thread "shared" holds checkpoints of graph "one"`)
}
