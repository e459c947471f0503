package graph_test

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/loomwork/loom/agent"
	"github.com/loomwork/loom/checkpoint"
	"github.com/loomwork/loom/graph"
	"github.com/stretchr/testify/require"
)

var approvalSchema = json.RawMessage(`{"type":"object","properties":{"ok":{"type":"boolean"}},"required":["ok"]}`)

type approval struct {
	OK bool `json:"ok"`
}

// askNode adds an Ask node that records its answer in Log as "<name>=<ok>".
func askNode(g *graph.Graph[st], name string) *graph.Graph[st] {
	return g.Ask(name, func(s st) (graph.Question, error) {
		return graph.Question{Kind: "approval", Payload: map[string]any{"node": name, "count": s.Count}, Schema: approvalSchema}, nil
	}, func(s st, answer json.RawMessage) (st, error) {
		var a approval
		if err := json.Unmarshal(answer, &a); err != nil {
			return s, err
		}
		s.Log = append(s.Log, fmt.Sprintf("%s=%v", name, a.OK))
		return s, nil
	})
}

// counted returns a node that counts its runs in n and appends its name.
func counted(n *atomic.Int32, name string) func(context.Context, st) (st, error) {
	return func(_ context.Context, s st) (st, error) {
		n.Add(1)
		s.Log = append(s.Log, name)
		return s, nil
	}
}

func yes() json.RawMessage { return json.RawMessage(`{"ok":true}`) }

func interrupted(t *testing.T, err error) *agent.InterruptedError {
	t.Helper()
	ie := agent.Interrupts(err)
	require.NotNil(t, ie, "want an interruption, got %v", err)
	return ie
}

func answer(ie *agent.InterruptedError, a json.RawMessage) map[string]json.RawMessage {
	m := map[string]json.RawMessage{}
	for _, q := range ie.Questions {
		m[q.ID] = a
	}
	return m
}

// langgraph#6208: a node asking twice re-ran after the first answer.
func TestTwoAsksInARowDoNotRerunAnything(t *testing.T) {
	ctx := context.Background()
	var before, after atomic.Int32
	g := graph.New[st](graph.Config{}).Reducer("log", graph.Append()).
		Node("charge", counted(&before, "charge"))
	askNode(g, "first")
	askNode(g, "second")
	g.Node("ship", counted(&after, "ship")).
		Edge(graph.START, "charge").Edge("charge", "first").Edge("first", "second").Edge("second", "ship").Edge("ship", graph.END)
	c := compile(t, g)

	_, err := c.Invoke(ctx, "t", st{})
	ie := interrupted(t, err)
	require.Len(t, ie.Questions, 1)
	require.Equal(t, "t:2:first", ie.Questions[0].ID)
	require.JSONEq(t, `{"node":"first","count":0}`, string(ie.Questions[0].Payload))

	_, err = c.ResumeInvoke(ctx, "t", answer(ie, yes()))
	ie = interrupted(t, err)
	require.Equal(t, "t:3:second", ie.Questions[0].ID)

	out, err := c.ResumeInvoke(ctx, "t", answer(ie, json.RawMessage(`{"ok":false}`)))
	require.NoError(t, err)
	require.Equal(t, []string{"charge", "first=true", "second=false", "ship"}, out.Log)
	require.Equal(t, int32(1), before.Load())
	require.Equal(t, int32(1), after.Load())
}

// langgraph#7780: an interrupt in a loop replayed N times with duplicate
// side effects.
func TestAskInALoop(t *testing.T) {
	ctx := context.Background()
	var work atomic.Int32
	g := graph.New[st](graph.Config{}).Reducer("log", graph.Append()).Reducer("count", graph.Sum()).
		Node("work", func(_ context.Context, s st) (st, error) {
			work.Add(1)
			s.Count++
			s.Log = append(s.Log, fmt.Sprintf("work%d", s.Count))
			return s, nil
		})
	askNode(g, "review")
	g.Edge(graph.START, "work").Edge("work", "review").
		Branch("review", func(_ context.Context, s st) ([]string, error) {
			if s.Log[len(s.Log)-1] == "review=true" {
				return []string{graph.END}, nil
			}
			return []string{"work"}, nil
		}, "work", graph.END)
	c := compile(t, g)
	_, err := c.Invoke(ctx, "loop", st{})
	for i := 0; i < 2; i++ {
		ie := interrupted(t, err)
		_, err = c.ResumeInvoke(ctx, "loop", answer(ie, json.RawMessage(`{"ok":false}`)))
	}
	out, err := c.ResumeInvoke(ctx, "loop", answer(interrupted(t, err), yes()))
	require.NoError(t, err)
	require.Equal(t, []string{"work1", "review=false", "work2", "review=false", "work3", "review=true"}, out.Log)
	require.Equal(t, int32(3), work.Load(), "each iteration's work ran once")
}

// langgraph#6663: the same interrupt resumed with different values.
func TestSameInterruptDifferentAnswers(t *testing.T) {
	ctx := context.Background()
	g := graph.New[st](graph.Config{}).Reducer("log", graph.Append())
	askNode(g, "ok").Edge(graph.START, "ok").Edge("ok", graph.END)
	c := compile(t, g)
	_, err := c.Invoke(ctx, "t", st{})
	ie := interrupted(t, err)
	waitAt, err := c.StateAt(ctx, "t", 0)
	require.NoError(t, err)
	require.Equal(t, graph.StatusWaiting, waitAt.Status)

	out, err := c.ResumeInvoke(ctx, "t", answer(ie, yes()))
	require.NoError(t, err)
	require.Equal(t, []string{"ok=true"}, out.Log)

	_, err = c.ResumeInvoke(ctx, "t", answer(ie, json.RawMessage(`{"ok":false}`)))
	require.ErrorIs(t, err, graph.ErrAlreadyResumed)
	require.ErrorContains(t, err, "was answered by an earlier resume")

	// A different answer is a fork from the waiting checkpoint.
	_, err = c.Fork(ctx, "t", waitAt.Seq, "t-alt", nil)
	require.NoError(t, err)
	alt, err := c.ResumeInvoke(ctx, "t-alt", answer(ie, json.RawMessage(`{"ok":false}`)))
	require.NoError(t, err)
	require.Equal(t, []string{"ok=false"}, alt.Log)
	orig, err := c.StateAt(ctx, "t", 0)
	require.NoError(t, err)
	require.Equal(t, []string{"ok=true"}, orig.State.Log, "the fork left the original intact")
}

// langgraphjs#1552: a sub-graph resumed from its beginning.
func TestSubGraphResumesFromTheMiddle(t *testing.T) {
	ctx := context.Background()
	var pre, inner, post atomic.Int32
	store := checkpoint.NewMemory()
	sg := graph.New[st](graph.Config{Name: "sub", Store: store}).Reducer("log", graph.Append()).
		Node("draft", counted(&inner, "draft"))
	askNode(sg, "check")
	sg.Node("publish", counted(&inner, "publish")).
		Edge(graph.START, "draft").Edge("draft", "check").Edge("check", "publish").Edge("publish", graph.END)
	sub := compile(t, sg)

	pg := graph.New[st](graph.Config{Name: "parent", Store: store}).Reducer("log", graph.Append()).
		Node("pre", counted(&pre, "pre"))
	graph.SubGraph(pg, "inner", sub, func(s st) (st, error) { return st{Topic: s.Topic}, nil },
		func(s st, r st) (st, error) { s.Log = append(s.Log, r.Log...); return s, nil })
	pg.Node("post", counted(&post, "post")).
		Edge(graph.START, "pre").Edge("pre", "inner").Edge("inner", "post").Edge("post", graph.END)
	c := compile(t, pg)

	_, err := c.Invoke(ctx, "p", st{Topic: "x"})
	ie := interrupted(t, err)
	reqs, err := c.Pending(ctx, "p")
	require.NoError(t, err)
	require.Len(t, reqs, 1)
	require.Equal(t, "inner", reqs[0].Node)
	require.Equal(t, "p/inner@2", reqs[0].Thread)

	out, err := c.ResumeInvoke(ctx, "p", answer(ie, yes()))
	require.NoError(t, err)
	require.Equal(t, []string{"pre", "draft", "check=true", "publish", "post"}, out.Log)
	require.Equal(t, int32(1), pre.Load())
	require.Equal(t, int32(2), inner.Load(), "draft once, publish once")
	require.Equal(t, int32(1), post.Load())
}

// smallnest/langgraphgo#70: no checkpoint on a dynamic interrupt. Here
// asks are dispatched dynamically beside a node that finishes; the step's
// checkpoint keeps both questions and the finished node's writes.
func TestDynamicInterruptsAreCheckpointed(t *testing.T) {
	ctx := context.Background()
	var side atomic.Int32
	g := graph.New[st](graph.Config{}).Reducer("log", graph.Append()).
		Node("plan", func(_ context.Context, s st) (st, error) { s.Items = []string{"a", "b"}; return s, nil }).
		Node("side", counted(&side, "side"))
	askNode(g, "approve")
	g.Edge(graph.START, "plan").Edge("plan", "side").
		Dispatch("plan", func(_ context.Context, s st) ([]graph.Send[st], error) {
			var out []graph.Send[st]
			for _, it := range s.Items {
				out = append(out, graph.Send[st]{Node: "approve", State: st{Topic: it}})
			}
			return out, nil
		}, "approve").
		Edge("approve", graph.END).Edge("side", graph.END)
	c := compile(t, g)
	_, err := c.Invoke(ctx, "d", st{})
	ie := interrupted(t, err)
	require.Len(t, ie.Questions, 2)
	head, err := c.StateAt(ctx, "d", 0)
	require.NoError(t, err)
	require.Equal(t, "waiting", head.Kind)
	require.Len(t, head.Waiting, 2)
	require.Equal(t, []string{"approve#0", "approve#1"}, []string{head.Waiting[0].Node, head.Waiting[1].Node})

	// Answer one: the other keeps waiting, nothing re-runs.
	_, err = c.ResumeInvoke(ctx, "d", map[string]json.RawMessage{ie.Questions[1].ID: yes()})
	left := interrupted(t, err)
	require.Len(t, left.Questions, 1)
	require.Equal(t, ie.Questions[0].ID, left.Questions[0].ID)

	out, err := c.ResumeInvoke(ctx, "d", map[string]json.RawMessage{ie.Questions[0].ID: json.RawMessage(`{"ok":false}`)})
	require.NoError(t, err)
	require.Equal(t, []string{"approve=false", "approve=true", "side"}, out.Log, "writes applied in task order")
	require.Equal(t, int32(1), side.Load())
}

type wide struct {
	Name    string             `json:"name"`
	Meta    map[string]string  `json:"meta,omitempty"`
	Nested  struct{ A, B int } `json:"nested"`
	Flags   []bool             `json:"flags,omitempty"`
	Answer  string             `json:"answer,omitempty"`
	Counter int                `json:"counter"`
}

// spring-ai-alibaba#4526: resumed state dropped keys.
func TestResumeKeepsEveryKey(t *testing.T) {
	ctx := context.Background()
	g := graph.New[wide](graph.Config{}).
		Node("fill", func(_ context.Context, s wide) (wide, error) {
			s.Meta = map[string]string{"k": "v"}
			s.Nested.A, s.Nested.B = 1, 2
			s.Flags = []bool{true, false}
			s.Counter = 7
			return s, nil
		}).
		Ask("ask", func(wide) (graph.Question, error) { return graph.Question{Kind: "input"}, nil },
			func(s wide, a json.RawMessage) (wide, error) { s.Answer = string(a); return s, nil }).
		Edge(graph.START, "fill").Edge("fill", "ask").Edge("ask", graph.END)
	c := compile(t, g)
	_, err := c.Invoke(ctx, "k", wide{Name: "n"})
	ie := interrupted(t, err)
	out, err := c.ResumeInvoke(ctx, "k", answer(ie, json.RawMessage(`"yes"`)))
	require.NoError(t, err)
	want := wide{Name: "n", Meta: map[string]string{"k": "v"}, Flags: []bool{true, false}, Answer: `"yes"`, Counter: 7}
	want.Nested.A, want.Nested.B = 1, 2
	require.Equal(t, want, out)
}

// LangGraph's checkpoint_writes: a node failure keeps the step's other
// writes, and the resume does not run the nodes that finished.
func TestNodeFailureKeepsOtherWrites(t *testing.T) {
	ctx := context.Background()
	var ok, flaky, effect atomic.Int32
	g := graph.New[st](graph.Config{}).Reducer("log", graph.Append()).
		Node("ok", counted(&ok, "ok")).
		Node("flaky", func(ctx context.Context, s st) (st, error) {
			if _, err := graph.Once(ctx, "email", func(context.Context) (int32, error) { return effect.Add(1), nil }); err != nil {
				return s, err
			}
			if flaky.Add(1) == 1 {
				return s, fmt.Errorf("upstream 503")
			}
			s.Log = append(s.Log, "flaky")
			return s, nil
		}).
		Edge(graph.START, "ok").Edge(graph.START, "flaky").Edge("ok", graph.END).Edge("flaky", graph.END)
	c := compile(t, g)
	_, err := c.Invoke(ctx, "f", st{})
	var ne *graph.NodeError
	require.ErrorAs(t, err, &ne)
	require.Equal(t, "flaky", ne.Node)
	require.ErrorContains(t, err, "upstream 503")
	head, err := c.StateAt(ctx, "f", 0)
	require.NoError(t, err)
	require.Equal(t, graph.StatusFailed, head.Status)
	require.Contains(t, head.Error, "upstream 503")

	out, err := c.ResumeInvoke(ctx, "f", nil)
	require.NoError(t, err)
	require.Equal(t, []string{"flaky", "ok"}, out.Log)
	require.Equal(t, int32(1), ok.Load(), "the node that succeeded did not run again")
	require.Equal(t, int32(2), flaky.Load())
	require.Equal(t, int32(1), effect.Load(), "the Once effect ran once")
}

func TestAnswerChecks(t *testing.T) {
	ctx := context.Background()
	g := graph.New[st](graph.Config{}).Reducer("log", graph.Append())
	askNode(g, "ok").Edge(graph.START, "ok").Edge("ok", graph.END)
	c := compile(t, g)
	_, err := c.Invoke(ctx, "a", st{})
	ie := interrupted(t, err)

	_, err = c.ResumeInvoke(ctx, "a", answer(ie, json.RawMessage(`{"ok":"yes"}`)))
	require.ErrorIs(t, err, agent.ErrInvalidAnswer)
	require.ErrorContains(t, err, `node "ok"`)
	head, err := c.StateAt(ctx, "a", 0)
	require.NoError(t, err)
	require.Equal(t, graph.StatusWaiting, head.Status, "the node keeps waiting")

	_, err = c.ResumeInvoke(ctx, "a", map[string]json.RawMessage{"nope": yes()})
	require.ErrorIs(t, err, graph.ErrUnknownAnswer)
	require.ErrorContains(t, err, ie.Questions[0].ID)

	_, err = c.ResumeInvoke(ctx, "a", nil)
	require.ErrorIs(t, err, graph.ErrNothingToResume)

	_, err = c.ResumeInvoke(ctx, "a", answer(ie, yes()))
	require.NoError(t, err)
	_, err = c.ResumeInvoke(ctx, "a", nil)
	require.ErrorIs(t, err, graph.ErrNothingToResume)
	_, err = c.ResumeInvoke(ctx, "never", nil)
	require.ErrorIs(t, err, graph.ErrNothingToResume)
}

// A double-clicked "approve": of concurrent resumes exactly one advances.
func TestConcurrentDoubleResume(t *testing.T) {
	for name, store := range stores(t) {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			var shipped atomic.Int32
			g := graph.New[st](graph.Config{Store: store}).Reducer("log", graph.Append())
			askNode(g, "approve")
			g.Node("ship", counted(&shipped, "ship")).
				Edge(graph.START, "approve").Edge("approve", "ship").Edge("ship", graph.END)
			c := compile(t, g)
			_, err := c.Invoke(ctx, "dbl", st{})
			ie := interrupted(t, err)

			const n = 6
			errs := make([]error, n)
			var wg sync.WaitGroup
			for i := range n {
				wg.Go(func() { _, errs[i] = c.ResumeInvoke(ctx, "dbl", answer(ie, yes())) })
			}
			wg.Wait()
			won := 0
			for _, err := range errs {
				if err == nil {
					won++
					continue
				}
				require.ErrorIs(t, err, graph.ErrAlreadyResumed)
			}
			require.Equal(t, 1, won)
			require.Equal(t, int32(1), shipped.Load())
			head, err := c.StateAt(ctx, "dbl", 0)
			require.NoError(t, err)
			require.Equal(t, []string{"approve=true", "ship"}, head.State.Log)
		})
	}
}
