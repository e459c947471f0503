package graph_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/loomwork/loom/agent"

	"github.com/loomwork/loom/agent/agentrt"
	"github.com/loomwork/loom/checkpoint"
	"github.com/loomwork/loom/engine"
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

// sendEach dispatches one task of node for each of the state's Items,
// with the item as its Topic.
func sendEach(node string) func(context.Context, st) ([]graph.Send[st], error) {
	return func(_ context.Context, s st) ([]graph.Send[st], error) {
		var out []graph.Send[st]
		for _, it := range s.Items {
			out = append(out, graph.Send[st]{Node: node, State: st{Topic: it}})
		}
		return out, nil
	}
}

func yes() json.RawMessage { return json.RawMessage(`{"ok":true}`) }

func interrupted(t *testing.T, err error) *agent.InterruptedError {
	t.Helper()
	ie := agentrt.Interrupts(err)
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

// durable returns an engine that saves its runs to store (a fresh memory
// store when nil): the one way a graph run is saved and resumed.
func durable(store checkpoint.Store) *engine.Engine {
	if store == nil {
		store = checkpoint.NewMemory()
	}
	return engine.New(engine.Config{Checkpoints: store})
}

// runAs runs c under e as run id, returning the final state.
func runAs[S any](ctx context.Context, e *engine.Engine, c *graph.Compiled[S], id string, in S) (S, error) {
	ctx = agentrt.WithIDs(ctx, func() string { return id })
	return engine.InvokeAs[S](ctx, e, c, in)
}

// resumeAs resumes run id of c under e with answers.
func resumeAs[S any](ctx context.Context, e *engine.Engine, c *graph.Compiled[S], id string, answers map[string]json.RawMessage) (S, error) {
	var s S
	res, err := e.ResumeInvoke(ctx, c, id, answers)
	if err != nil {
		return s, err
	}
	err = res.Decode(&s)
	return s, err
}

// pendingIDs returns the ids of the questions Engine.Pending lists.
func pendingIDs(t *testing.T, e *engine.Engine, id string) []string {
	t.Helper()
	qs, err := e.Pending(context.Background(), id)
	require.NoError(t, err)
	ids := []string{}
	for _, q := range qs {
		ids = append(ids, q.ID)
	}
	return ids
}

// langgraph#6208: a node asking twice re-ran after the first answer. Here
// the engine lists the question the run waits for after each answer, under
// the ids of the steps, which a resume does not renumber.
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
	e := durable(nil)

	_, err := runAs(ctx, e, c, "t", st{})
	ie := interrupted(t, err)
	require.Len(t, ie.Questions, 1)
	require.Equal(t, "t.2.1?1", ie.Questions[0].ID, "step 2's first task asked")
	require.Equal(t, "t", ie.Questions[0].Run)
	require.JSONEq(t, `{"node":"first","count":0}`, string(ie.Questions[0].Payload))
	require.Equal(t, []string{"t.2.1?1"}, pendingIDs(t, e, "t"))

	_, err = resumeAs(ctx, e, c, "t", answer(ie, yes()))
	ie = interrupted(t, err)
	require.Equal(t, "t.3.1?1", ie.Questions[0].ID)
	require.Equal(t, []string{"t.3.1?1"}, pendingIDs(t, e, "t"), "the engine lists the second question")

	out, err := resumeAs(ctx, e, c, "t", answer(ie, json.RawMessage(`{"ok":false}`)))
	require.NoError(t, err)
	require.Equal(t, []string{"charge", "first=true", "second=false", "ship"}, out.Log)
	require.Equal(t, int32(1), before.Load())
	require.Equal(t, int32(1), after.Load())
	require.Empty(t, pendingIDs(t, e, "t"))

	// One record, one set of step runs: each step's run started once.
	hist, err := e.History(ctx, "t")
	require.NoError(t, err)
	starts := map[string]int{}
	for _, step := range hist {
		for _, ev := range step.Events {
			if ev.Kind == agent.EventRunStart && ev.Agent == "step" {
				starts[ev.RunID]++
			}
		}
	}
	require.Equal(t, map[string]int{"t.1": 1, "t.2": 1, "t.3": 1, "t.4": 1}, starts)
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
	e := durable(nil)
	_, err := runAs(ctx, e, c, "loop", st{})
	for range 2 {
		ie := interrupted(t, err)
		_, err = resumeAs(ctx, e, c, "loop", answer(ie, json.RawMessage(`{"ok":false}`)))
	}
	out, err := resumeAs(ctx, e, c, "loop", answer(interrupted(t, err), yes()))
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
	e := durable(nil)
	_, err := runAs(ctx, e, c, "t", st{})
	ie := interrupted(t, err)
	hist, err := e.History(ctx, "t")
	require.NoError(t, err)
	waitAt := hist[len(hist)-1]
	require.Equal(t, engine.CheckpointInterrupt, waitAt.Kind)

	out, err := resumeAs(ctx, e, c, "t", answer(ie, yes()))
	require.NoError(t, err)
	require.Equal(t, []string{"ok=true"}, out.Log)

	_, err = resumeAs(ctx, e, c, "t", answer(ie, json.RawMessage(`{"ok":false}`)))
	require.ErrorIs(t, err, engine.ErrRunEnded)

	// A different answer is a fork from the waiting checkpoint.
	alt, err := e.Fork(ctx, "t", waitAt.Seq, engine.ForkID("t-alt"))
	require.NoError(t, err)
	qs, err := e.Pending(ctx, alt)
	require.NoError(t, err)
	require.Len(t, qs, 1)
	require.Equal(t, "t-alt.1.1?1", qs[0].ID)
	altOut, err := resumeAs(ctx, e, c, alt, map[string]json.RawMessage{qs[0].ID: json.RawMessage(`{"ok":false}`)})
	require.NoError(t, err)
	require.Equal(t, []string{"ok=false"}, altOut.Log)
	res, err := e.History(ctx, "t")
	require.NoError(t, err)
	require.Equal(t, "done", res[len(res)-1].Status, "the fork left the original intact")
}

// langgraphjs#1552: a sub-graph resumed from its beginning.
func TestSubGraphResumesFromTheMiddle(t *testing.T) {
	ctx := context.Background()
	var pre, inner, post atomic.Int32
	sg := graph.New[st](graph.Config{Name: "sub"}).Reducer("log", graph.Append()).
		Node("draft", counted(&inner, "draft"))
	askNode(sg, "check")
	sg.Node("publish", counted(&inner, "publish")).
		Edge(graph.START, "draft").Edge("draft", "check").Edge("check", "publish").Edge("publish", graph.END)
	sub := compile(t, sg)

	pg := graph.New[st](graph.Config{Name: "parent"}).Reducer("log", graph.Append()).
		Node("pre", counted(&pre, "pre"))
	graph.SubGraph(pg, "inner", sub, func(s st) (st, error) { return st{Topic: s.Topic}, nil },
		func(s st, r st) (st, error) { s.Log = append(s.Log, r.Log...); return s, nil })
	pg.Node("post", counted(&post, "post")).
		Edge(graph.START, "pre").Edge("pre", "inner").Edge("inner", "post").Edge("post", graph.END)
	c := compile(t, pg)
	e := durable(nil)

	_, err := runAs(ctx, e, c, "p", st{Topic: "x"})
	ie := interrupted(t, err)
	qs, err := e.Pending(ctx, "p")
	require.NoError(t, err)
	require.Len(t, qs, 1)
	require.Equal(t, "p.2.1.1.2.1", qs[0].AskedBy(), "the sub-graph's second step's task asked")
	require.Equal(t, "p", qs[0].Run)

	out, err := resumeAs(ctx, e, c, "p", answer(ie, yes()))
	require.NoError(t, err)
	require.Equal(t, []string{"pre", "draft", "check=true", "publish", "post"}, out.Log)
	require.Equal(t, int32(1), pre.Load())
	require.Equal(t, int32(2), inner.Load(), "draft once, publish once")
	require.Equal(t, int32(1), post.Load())
}

// smallnest/langgraphgo#70: no checkpoint on a dynamic interrupt. Here
// asks are dispatched dynamically beside a node that finishes; the run
// waits for both questions and keeps the finished node's writes.
func TestDynamicInterruptsAreCheckpointed(t *testing.T) {
	ctx := context.Background()
	var side atomic.Int32
	g := graph.New[st](graph.Config{}).Reducer("log", graph.Append()).
		Node("plan", func(_ context.Context, s st) (st, error) { s.Items = []string{"a", "b"}; return s, nil }).
		Node("side", counted(&side, "side"))
	askNode(g, "approve")
	g.Edge(graph.START, "plan").Edge("plan", "side").
		Dispatch("plan", sendEach("approve"), "approve").
		Edge("approve", graph.END).Edge("side", graph.END)
	c := compile(t, g)
	e := durable(nil)
	_, err := runAs(ctx, e, c, "d", st{})
	ie := interrupted(t, err)
	require.Len(t, ie.Questions, 2)
	require.ElementsMatch(t, []string{"d.2.1?1", "d.2.2?1"}, pendingIDs(t, e, "d"), "parallel tasks ask in any order")

	// Answer one: the other keeps waiting, nothing re-runs.
	_, err = resumeAs(ctx, e, c, "d", map[string]json.RawMessage{ie.Questions[1].ID: yes()})
	left := interrupted(t, err)
	require.Len(t, left.Questions, 1)
	require.Equal(t, ie.Questions[0].ID, left.Questions[0].ID)
	require.Equal(t, []string{ie.Questions[0].ID}, pendingIDs(t, e, "d"))

	out, err := resumeAs(ctx, e, c, "d", map[string]json.RawMessage{ie.Questions[0].ID: json.RawMessage(`{"ok":false}`)})
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
	e := durable(nil)
	_, err := runAs(ctx, e, c, "k", wide{Name: "n"})
	ie := interrupted(t, err)
	out, err := resumeAs(ctx, e, c, "k", answer(ie, json.RawMessage(`"yes"`)))
	require.NoError(t, err)
	want := wide{Name: "n", Meta: map[string]string{"k": "v"}, Flags: []bool{true, false}, Answer: `"yes"`, Counter: 7}
	want.Nested.A, want.Nested.B = 1, 2
	require.Equal(t, want, out)
}

// A node failure fails the run, naming the node and the step; the other
// nodes of the step ran once.
func TestNodeFailureNamesTheNode(t *testing.T) {
	ctx := context.Background()
	var ok atomic.Int32
	g := graph.New[st](graph.Config{}).Reducer("log", graph.Append()).
		Node("ok", counted(&ok, "ok")).
		Node("flaky", func(context.Context, st) (st, error) { return st{}, fmt.Errorf("upstream 503") }).
		Edge(graph.START, "ok").Edge(graph.START, "flaky").Edge("ok", graph.END).Edge("flaky", graph.END)
	c := compile(t, g)
	_, err := c.Invoke(ctx, st{})
	var ne *graph.NodeError
	require.ErrorAs(t, err, &ne)
	require.Equal(t, "flaky", ne.Node)
	require.Equal(t, 1, ne.Step)
	require.ErrorContains(t, err, "upstream 503")
	require.Equal(t, int32(1), ok.Load())
}

func TestAnswerChecks(t *testing.T) {
	ctx := context.Background()
	g := graph.New[st](graph.Config{}).Reducer("log", graph.Append())
	askNode(g, "ok").Edge(graph.START, "ok").Edge("ok", graph.END)
	c := compile(t, g)
	e := durable(nil)
	_, err := runAs(ctx, e, c, "a", st{})
	ie := interrupted(t, err)

	_, err = resumeAs(ctx, e, c, "a", answer(ie, json.RawMessage(`{"ok":"yes"}`)))
	require.ErrorIs(t, err, agent.ErrInvalidAnswer)
	require.ErrorContains(t, err, ie.Questions[0].ID)
	require.Equal(t, []string{ie.Questions[0].ID}, pendingIDs(t, e, "a"), "the node keeps waiting")

	_, err = resumeAs(ctx, e, c, "a", map[string]json.RawMessage{"nope": yes()})
	require.ErrorIs(t, err, engine.ErrUnknownQuestion)
	require.ErrorContains(t, err, ie.Questions[0].ID)

	_, err = resumeAs(ctx, e, c, "a", nil)
	ie2 := interrupted(t, err)
	require.Equal(t, ie.Questions[0].ID, ie2.Questions[0].ID, "resumed without its answer, it asks again")

	_, err = resumeAs(ctx, e, c, "a", answer(ie, yes()))
	require.NoError(t, err)
	_, err = resumeAs(ctx, e, c, "a", nil)
	require.ErrorIs(t, err, engine.ErrRunEnded)
	_, err = resumeAs(ctx, e, c, "never", nil)
	require.ErrorIs(t, err, engine.ErrNoCheckpoints)
}

// A double-clicked "approve": of concurrent resumes exactly one advances.
func TestConcurrentDoubleResume(t *testing.T) {
	for name, store := range stores(t) {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			var shipped atomic.Int32
			g := graph.New[st](graph.Config{}).Reducer("log", graph.Append())
			askNode(g, "approve")
			g.Node("ship", counted(&shipped, "ship")).
				Edge(graph.START, "approve").Edge("approve", "ship").Edge("ship", graph.END)
			c := compile(t, g)
			e := durable(store)
			_, err := runAs(ctx, e, c, "dbl", st{})
			ie := interrupted(t, err)

			const n = 6
			outs := make([]st, n)
			errs := make([]error, n)
			var wg sync.WaitGroup
			for i := range n {
				wg.Go(func() { outs[i], errs[i] = resumeAs(ctx, e, c, "dbl", answer(ie, yes())) })
			}
			wg.Wait()
			won := 0
			for i, err := range errs {
				if err == nil {
					won++
					require.Equal(t, []string{"approve=true", "ship"}, outs[i].Log)
					continue
				}
				require.True(t, errors.Is(err, engine.ErrAlreadyResumed) || errors.Is(err, engine.ErrRunEnded), "%v", err)
			}
			require.Equal(t, 1, won)
			require.Equal(t, int32(1), shipped.Load())
		})
	}
}
