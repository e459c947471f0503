package graph_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"

	"github.com/loomwork/loom/agent"
	"github.com/loomwork/loom/graph"
	"github.com/stretchr/testify/require"
)

type st struct {
	Topic string         `json:"topic"`
	Log   []string       `json:"log"`
	Count int            `json:"count"`
	Tags  map[string]int `json:"tags,omitempty"`
	Items []string       `json:"items,omitempty"`
	Out   string         `json:"out,omitempty"`
	Note  string         `json:"note,omitempty"`
}

// logNode appends its name to Log and adds 1 to Count.
func logNode(name string) func(context.Context, st) (st, error) {
	return func(_ context.Context, s st) (st, error) {
		s.Log = append(s.Log, name)
		s.Count++
		return s, nil
	}
}

func compile[S any](t *testing.T, g *graph.Graph[S]) *graph.Compiled[S] {
	t.Helper()
	c, err := g.Compile()
	require.NoError(t, err)
	return c
}

func TestLinearAndFanOutJoin(t *testing.T) {
	ctx := context.Background()
	g := graph.New[st](graph.Config{Name: "fan"}).
		Reducer("log", graph.Append()).Reducer("count", graph.Sum()).
		Node("a", logNode("a")).Node("b", logNode("b")).Node("c", logNode("c")).
		Node("slow", logNode("slow")).Node("d", logNode("d")).
		Edge(graph.START, "a").Edge("a", "b").Edge("a", "c").Edge("c", "slow").
		Join("d", "b", "slow").Edge("d", graph.END)
	c := compile(t, g)
	e := durable(nil)
	out, err := runAs(ctx, e, c, "t1", st{Topic: "x"})
	require.NoError(t, err)
	// b and c run in one step in name order; d waits for b and slow.
	require.Equal(t, []string{"a", "b", "c", "slow", "d"}, out.Log)
	require.Equal(t, 5, out.Count)
	require.Equal(t, "x", out.Topic)

	hist, err := c.History(ctx, e, "t1")
	require.NoError(t, err)
	require.Len(t, hist, 4)
	require.Equal(t, []string{"b", "c"}, hist[0].Next)
	require.Equal(t, []string{"a", "b", "c"}, hist[1].State.Log)
	require.Equal(t, []string{"slow"}, hist[1].Next)
}

func TestReducers(t *testing.T) {
	ctx := context.Background()
	set := func(f func(*st)) func(context.Context, st) (st, error) {
		return func(_ context.Context, s st) (st, error) { f(&s); return s, nil }
	}
	longest := graph.Custom("longest", func(cur, w string) (string, error) {
		if len(w) > len(cur) {
			return w, nil
		}
		return cur, nil
	})
	g := graph.New[st](graph.Config{}).
		Reducer("log", graph.Append()).Reducer("count", graph.Sum()).Reducer("tags", graph.Merge()).
		Reducer("out", graph.Replace()).Reducer("note", longest).
		Node("p", set(func(s *st) {
			s.Log = append(s.Log, "p")
			s.Count += 2
			s.Tags = map[string]int{"p": 1, "shared": 1}
			s.Out, s.Note = "from p", "pp"
		})).
		Node("q", set(func(s *st) {
			s.Log = append(s.Log, "q1", "q2")
			s.Count += 3
			s.Tags = map[string]int{"q": 2, "shared": 2}
			s.Out, s.Note = "from q", "qqqq"
		})).
		Edge(graph.START, "p").Edge(graph.START, "q").Edge("p", graph.END).Edge("q", graph.END)
	c := compile(t, g)
	out, err := c.Invoke(ctx, st{Log: []string{"in"}, Count: 10})
	require.NoError(t, err)
	require.Equal(t, []string{"in", "p", "q1", "q2"}, out.Log)
	require.Equal(t, 15, out.Count)
	require.Equal(t, map[string]int{"p": 1, "q": 2, "shared": 2}, out.Tags)
	require.Equal(t, "from q", out.Out, "Replace keeps the last write in task order")
	require.Equal(t, "qqqq", out.Note)
}

func TestAppendFieldRewrittenIsAnError(t *testing.T) {
	g := graph.New[st](graph.Config{}).Reducer("log", graph.Append()).
		Node("bad", func(_ context.Context, s st) (st, error) { s.Log = []string{"other"}; return s, nil }).
		Edge(graph.START, "bad").Edge("bad", graph.END)
	_, err := compile(t, g).Invoke(context.Background(), st{Log: []string{"x"}})
	require.ErrorContains(t, err, `field "log" (reducer append)`)
	require.ErrorContains(t, err, "changed element 0")
	var ne *graph.NodeError
	require.ErrorAs(t, err, &ne)
	require.Equal(t, "bad", ne.Node)
}

func TestWriteConflictNamesFieldAndNodes(t *testing.T) {
	set := func(v string) func(context.Context, st) (st, error) {
		return func(_ context.Context, s st) (st, error) { s.Out = v; return s, nil }
	}
	g := graph.New[st](graph.Config{}).Node("left", set("l")).Node("right", set("r")).
		Edge(graph.START, "left").Edge(graph.START, "right").Edge("left", graph.END).Edge("right", graph.END)
	c := compile(t, g)
	_, err := c.Invoke(context.Background(), st{})
	var we *graph.WriteConflictError
	require.ErrorAs(t, err, &we)
	require.ErrorIs(t, err, graph.ErrWriteConflict)
	require.Equal(t, "out", we.Field)
	require.Equal(t, []string{"left", "right"}, we.Nodes)
	require.ErrorContains(t, err, `field "out" was written by "left" and "right"`)
}

func TestStepLimitNamesLoopingNodes(t *testing.T) {
	g := graph.New[st](graph.Config{MaxSteps: 6}).Reducer("log", graph.Append()).
		Node("ping", logNode("ping")).Node("pong", logNode("pong")).Node("stop", logNode("stop")).
		Edge(graph.START, "ping").Edge("ping", "pong").
		Branch("pong", func(_ context.Context, s st) ([]string, error) {
			if s.Count > 100 {
				return []string{"stop"}, nil
			}
			return []string{"ping"}, nil
		}, "ping", "stop").Edge("stop", graph.END)
	_, err := compile(t, g).Invoke(context.Background(), st{})
	var le *graph.StepLimitError
	require.ErrorAs(t, err, &le)
	require.ErrorIs(t, err, graph.ErrStepLimit)
	require.Equal(t, 6, le.Limit)
	require.ElementsMatch(t, []string{"ping", "pong"}, le.Looping)
	require.Equal(t, 6, le.Steps)
	require.Equal(t, map[string]int{"ping": 3, "pong": 3}, le.Runs)
	require.ErrorContains(t, err, `6 steps ran since the run started, the limit is 6`)
	require.ErrorContains(t, err, `looping nodes: "ping" (3 runs), "pong" (3 runs)`)
}

func TestCompileErrors(t *testing.T) {
	noop := func(_ context.Context, s st) (st, error) { return s, nil }
	cases := []struct {
		name  string
		build func() *graph.Graph[st]
		want  []string
	}{
		{"unknown edge target", func() *graph.Graph[st] {
			return graph.New[st](graph.Config{}).Node("a", noop).Edge(graph.START, "a").Edge("a", "nope")
		}, []string{`edge "a" -> "nope" goes to an unknown node`, `node "a" has no path to graph.END`}},
		{"unreachable", func() *graph.Graph[st] {
			return graph.New[st](graph.Config{}).Node("a", noop).Node("island", noop).Edge(graph.START, "a").Edge("a", graph.END).Edge("island", graph.END)
		}, []string{`node "island" is unreachable`}},
		{"no start", func() *graph.Graph[st] {
			return graph.New[st](graph.Config{}).Node("a", noop).Edge("a", graph.END)
		}, []string{"nothing starts the graph"}},
		{"duplicate and reserved", func() *graph.Graph[st] {
			return graph.New[st](graph.Config{}).Node("a", noop).Node("a", noop).Node(graph.END, noop).Edge(graph.START, "a").Edge("a", graph.END)
		}, []string{`node "a" is added twice`, `node name "__end__" is reserved`}},
		{"reducer of unknown field", func() *graph.Graph[st] {
			return graph.New[st](graph.Config{}).Reducer("nope", graph.Sum()).Node("a", noop).Edge(graph.START, "a").Edge("a", graph.END)
		}, []string{`reducer for field "nope"`}},
		{"branch without targets", func() *graph.Graph[st] {
			return graph.New[st](graph.Config{}).Node("a", noop).Edge(graph.START, "a").
				Branch("a", func(context.Context, st) ([]string, error) { return nil, nil })
		}, []string{`branch from "a" needs a route function and the targets`}},
		{"negative limits", func() *graph.Graph[st] {
			return graph.New[st](graph.Config{MaxSteps: -1, MaxParallel: -2}).Node("a", noop).Edge(graph.START, "a").Edge("a", graph.END)
		}, []string{"MaxSteps is -1", "MaxParallel is -2"}},
		{"bad name", func() *graph.Graph[st] {
			return graph.New[st](graph.Config{Name: "has space"}).Node("a", noop).Edge(graph.START, "a").Edge("a", graph.END)
		}, []string{`name "has space" is not a valid tool name`}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := tc.build().Compile()
			require.ErrorIs(t, err, graph.ErrInvalidGraph)
			for _, w := range tc.want {
				require.ErrorContains(t, err, w)
			}
		})
	}
	_, err := graph.New[int](graph.Config{}).Compile()
	require.ErrorContains(t, err, "use a struct")
}

func TestDispatchSend(t *testing.T) {
	g := graph.New[st](graph.Config{}).Reducer("log", graph.Append()).Reducer("count", graph.Sum()).
		Node("plan", func(_ context.Context, s st) (st, error) { s.Items = []string{"x", "y", "z"}; return s, nil }).
		Node("work", func(_ context.Context, s st) (st, error) {
			s.Log = append(s.Log, "did "+s.Topic)
			s.Count++
			return s, nil
		}).
		Node("sum", func(_ context.Context, s st) (st, error) { s.Out = fmt.Sprint(len(s.Log)); return s, nil }).
		Edge(graph.START, "plan").
		Dispatch("plan", func(_ context.Context, s st) ([]graph.Send[st], error) {
			var out []graph.Send[st]
			for _, it := range s.Items {
				out = append(out, graph.Send[st]{Node: "work", State: st{Topic: it}})
			}
			return out, nil
		}, "work").
		Edge("work", "sum").Edge("sum", graph.END)
	c := compile(t, g)
	e := durable(nil)
	out, err := runAs(context.Background(), e, c, "t", st{})
	require.NoError(t, err)
	require.Equal(t, []string{"did x", "did y", "did z"}, out.Log)
	require.Equal(t, 3, out.Count)
	require.Equal(t, "3", out.Out)
	require.Equal(t, "", out.Topic, "a Send's own state is not written back")
	hist, err := c.History(context.Background(), e, "t")
	require.NoError(t, err)
	require.Equal(t, []string{"work#0", "work#1", "work#2"}, hist[0].Next)
}

func TestNodesRunConcurrentlyWithinTheLimit(t *testing.T) {
	var mu sync.Mutex
	running, peak := 0, 0
	gate := make(chan struct{})
	node := func(_ context.Context, s st) (st, error) {
		mu.Lock()
		running++
		peak = max(peak, running)
		if running == 2 {
			close(gate)
		}
		mu.Unlock()
		<-gate
		mu.Lock()
		running--
		mu.Unlock()
		return s, nil
	}
	g := graph.New[st](graph.Config{MaxParallel: 2}).Node("a", node).Node("b", node).
		Edge(graph.START, "a").Edge(graph.START, "b").Edge("a", graph.END).Edge("b", graph.END)
	_, err := compile(t, g).Invoke(context.Background(), st{})
	require.NoError(t, err)
	require.Equal(t, 2, peak)
}

func TestRunEventsShowStepsNodesAndWrites(t *testing.T) {
	g := graph.New[st](graph.Config{Name: "ev"}).Reducer("log", graph.Append()).
		Node("a", logNode("a")).Edge(graph.START, "a").Edge("a", graph.END)
	c := compile(t, g)
	var steps, nodes []agent.Event
	for ev, err := range c.Run(context.Background(), json.RawMessage(`{"topic":"q"}`)) {
		require.NoError(t, err)
		if ev.Kind == agent.EventRunEnd && ev.Agent == "step" {
			steps = append(steps, ev)
		}
		if ev.Kind == agent.EventRunEnd && ev.Agent == "a" {
			nodes = append(nodes, ev)
		}
	}
	require.Len(t, steps, 1)
	require.JSONEq(t, `{"step":1,"state":{"topic":"q","log":["a"],"count":1},"ran":"AQ=="}`, string(steps[0].Output))
	require.Len(t, nodes, 1)
	require.JSONEq(t, `{"writes":[{"field":"log","value":["a"]},{"field":"count","value":1}]}`, string(nodes[0].Output))
	require.Equal(t, steps[0].RunID, nodes[0].ParentID)
}

func TestBadInput(t *testing.T) {
	ctx := context.Background()
	c := compile(t, graph.New[st](graph.Config{}).Node("a", logNode("a")).Edge(graph.START, "a").Edge("a", graph.END))
	_, err := agent.Invoke(ctx, c, json.RawMessage(`[1]`))
	require.ErrorIs(t, err, agent.ErrInvalidInput)
	require.ErrorContains(t, err, "the input must be a JSON object of state fields")
	out, err := agent.InvokeAs[st](ctx, c, json.RawMessage(`{"topic":"t","other":1}`))
	require.NoError(t, err, "keys that are not fields are ignored")
	require.Equal(t, "t", out.Topic)
}

func TestMermaid(t *testing.T) {
	noop := func(_ context.Context, s st) (st, error) { return s, nil }
	c := compile(t, graph.New[st](graph.Config{}).Node("a", noop).Node("b", noop).
		Ask("ok", func(st) (graph.Question, error) { return graph.Question{}, nil }, func(s st, _ json.RawMessage) (st, error) { return s, nil }).
		Edge(graph.START, "a").
		Branch("a", func(context.Context, st) ([]string, error) { return []string{"b"}, nil }, "b", "ok").
		Join("ok", "b").Edge("ok", graph.END).Edge("b", graph.END))
	require.Equal(t, `flowchart TD
  __start__([start])
  n0["a"]
  n1["b"]
  n2{{"ok"}}
  __end__([end])
  __start__ --> n0
  n0 -.-> n1
  n0 -.-> n2
  n1 --> __end__
  n2 --> __end__
  n1 == join ==> n2
`, c.Mermaid())
}

func TestGraphNestsAsAnAgent(t *testing.T) {
	inner := compile(t, graph.New[st](graph.Config{Name: "inner"}).Reducer("log", graph.Append()).
		Node("i", logNode("inner")).Edge(graph.START, "i").Edge("i", graph.END))
	outer := compile(t, graph.New[st](graph.Config{Name: "outer"}).Reducer("log", graph.Append()).
		AgentNode("call", inner, func(s st) (any, error) { return map[string]any{"topic": s.Topic}, nil },
			func(s st, out json.RawMessage) (st, error) {
				var r st
				if err := json.Unmarshal(out, &r); err != nil {
					return s, err
				}
				s.Log = append(s.Log, r.Log...)
				return s, nil
			}).
		Edge(graph.START, "call").Edge("call", graph.END))
	out, err := outer.Invoke(context.Background(), st{Topic: "t"})
	require.NoError(t, err)
	require.Equal(t, []string{"inner"}, out.Log)
	require.True(t, slices.Contains([]string{"outer"}, outer.Info().Name))
	require.Equal(t, "graph", outer.Info().Kind, "traces show a graph's kind")
	_, err = graph.Once(context.Background(), "k", func(context.Context) (int, error) { return 1, nil })
	require.True(t, errors.Is(err, graph.ErrNotInNode))
}
