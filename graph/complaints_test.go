package graph_test

import (
	"context"
	"encoding/json"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/loomwork/loom/agent"
	"github.com/loomwork/loom/checkpoint"
	"github.com/loomwork/loom/graph"
	"github.com/stretchr/testify/require"
)

// langchain-ai/docs#2119: the interrupt's configuration was not kept
// between invocations. Here a graph compiled anew over the same store (as
// in another process) sees the question, its payload and its schema, and
// checks the answer against it.
func TestQuestionSurvivesANewGraphInstance(t *testing.T) {
	ctx := context.Background()
	store := checkpoint.NewMemory()
	build := func() *graph.Compiled[st] {
		g := graph.New[st](graph.Config{Store: store}).Reducer("log", graph.Append())
		return compile(t, askNode(g, "ok").Edge(graph.START, "ok").Edge("ok", graph.END))
	}
	_, err := build().Invoke(ctx, "t", st{Count: 4})
	require.ErrorIs(t, err, agent.ErrInterrupted)

	fresh := build()
	reqs, err := fresh.Pending(ctx, "t")
	require.NoError(t, err)
	require.Len(t, reqs, 1)
	require.Equal(t, "approval", reqs[0].Kind)
	require.JSONEq(t, `{"node":"ok","count":4}`, string(reqs[0].Payload))
	require.JSONEq(t, string(approvalSchema), string(reqs[0].Schema))
	_, err = fresh.ResumeInvoke(ctx, "t", map[string]json.RawMessage{reqs[0].ID: json.RawMessage(`{}`)})
	require.ErrorIs(t, err, agent.ErrInvalidAnswer)
	out, err := fresh.ResumeInvoke(ctx, "t", map[string]json.RawMessage{reqs[0].ID: yes()})
	require.NoError(t, err)
	require.Equal(t, []string{"ok=true"}, out.Log)
}

// cloudwego/eino#1222: after a timeout, a stale checkpoint replayed tool
// calls that had been resolved. Here the resume after an approval times
// out in the next step; the next resume neither asks again nor repeats the
// tool call that finished before the timeout.
func TestResumeAfterATimeoutRepeatsNothing(t *testing.T) {
	store := checkpoint.NewMemory()
	var tool, slow atomic.Int32
	toolDone, started := make(chan struct{}), make(chan struct{})
	var closeOnce sync.Once
	g := graph.New[st](graph.Config{Store: store}).Reducer("log", graph.Append())
	askNode(g, "approve")
	g.Node("tool", func(ctx context.Context, s st) (st, error) {
		n, err := graph.Once(ctx, "call", func(context.Context) (int32, error) { return tool.Add(1), nil })
		if err != nil {
			return s, err
		}
		if n == 1 {
			defer closeOnce.Do(func() { close(toolDone) })
		}
		s.Log = append(s.Log, "tool")
		return s, nil
	}).
		Node("slow", func(ctx context.Context, s st) (st, error) {
			if slow.Add(1) == 1 {
				// The first time, it outlives the caller's deadline, which
				// comes after the tool call ended.
				<-toolDone
				close(started)
				<-ctx.Done()
				return s, ctx.Err()
			}
			s.Log = append(s.Log, "slow")
			return s, nil
		}).
		Edge(graph.START, "approve").Edge("approve", "tool").Edge("approve", "slow").
		Edge("tool", graph.END).Edge("slow", graph.END)
	c := compile(t, g)
	_, err := c.Invoke(context.Background(), "t", st{})
	ie := interrupted(t, err)

	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		select {
		case <-started:
			cancel()
		case <-ctx.Done():
		}
	}()
	_, err = c.ResumeInvoke(ctx, "t", answer(ie, yes()))
	require.ErrorIs(t, err, context.Canceled)
	cancel()

	out, err := c.ResumeInvoke(context.Background(), "t", nil)
	require.NoError(t, err)
	require.Equal(t, []string{"approve=true", "slow", "tool"}, out.Log)
	require.Equal(t, int32(1), tool.Load(), "the tool call was not repeated")
	hist, err := c.History(context.Background(), "t")
	require.NoError(t, err)
	asked := 0
	for _, h := range hist {
		if h.Kind == "waiting" {
			asked++
		}
	}
	require.Equal(t, 1, asked, "the approval was asked once")
	require.Equal(t, "failed", hist[len(hist)-3].Kind, "the timed-out step was saved with the tool's writes")
}

// A question two sub-graphs deep is answered through the outermost graph,
// and each level resumes from its own checkpoint.
func TestNestedSubGraphsResume(t *testing.T) {
	ctx := context.Background()
	store := checkpoint.NewMemory()
	var runs atomic.Int32
	inner := graph.New[st](graph.Config{Name: "inner", Store: store}).Reducer("log", graph.Append()).
		Node("prep", counted(&runs, "prep"))
	askNode(inner, "deep").Edge(graph.START, "prep").Edge("prep", "deep").Edge("deep", graph.END)
	mid := graph.New[st](graph.Config{Name: "mid", Store: store}).Reducer("log", graph.Append())
	pass := func(s st) (st, error) { return st{}, nil }
	back := func(s st, r st) (st, error) { s.Log = append(s.Log, r.Log...); return s, nil }
	graph.SubGraph(mid, "inner", compile(t, inner), pass, back).Edge(graph.START, "inner").Edge("inner", graph.END)
	top := graph.New[st](graph.Config{Name: "top", Store: store}).Reducer("log", graph.Append())
	graph.SubGraph(top, "mid", compile(t, mid), pass, back).Edge(graph.START, "mid").Edge("mid", graph.END)
	c := compile(t, top)

	_, err := c.Invoke(ctx, "top", st{})
	ie := interrupted(t, err)
	require.Len(t, ie.Questions, 1)
	require.Equal(t, "top/mid@1/inner@1:2:deep", ie.Questions[0].ID)
	out, err := c.ResumeInvoke(ctx, "top", answer(ie, yes()))
	require.NoError(t, err)
	require.Equal(t, []string{"prep", "deep=true"}, out.Log)
	require.Equal(t, int32(1), runs.Load())
}
