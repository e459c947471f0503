package graph_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"sort"
	"strconv"
	"sync/atomic"
	"testing"

	"github.com/loomwork/loom/agent"

	"github.com/loomwork/loom/agent/agentrt"
	"github.com/loomwork/loom/checkpoint"
	"github.com/loomwork/loom/engine"
	"github.com/loomwork/loom/graph"
	"github.com/loomwork/loom/internal/testkit"
	"github.com/loomwork/loom/model"
	"github.com/loomwork/loom/model/modeltest"
	"github.com/stretchr/testify/require"
)

// noSnapshots saves no snapshot: it removes the engine's snapshot fields
// from every checkpoint, so a resume reads every checkpoint, as when a
// snapshot cannot be read.
type noSnapshots struct{ checkpoint.Store }

func (n noSnapshots) Put(ctx context.Context, cp checkpoint.Checkpoint) error {
	var st map[string]json.RawMessage
	if err := json.Unmarshal(cp.State, &st); err != nil {
		return err
	}
	delete(st, "snapshot")
	delete(st, "snapshot_at")
	raw, err := json.Marshal(st)
	if err != nil {
		return err
	}
	cp.State = raw
	return n.Store.Put(ctx, cp)
}

// countLists counts the reads of a run's whole line.
type countLists struct {
	checkpoint.Store
	lists *atomic.Int32
}

func (c countLists) List(ctx context.Context, runID string) ([]checkpoint.Checkpoint, error) {
	c.lists.Add(1)
	return c.Store.List(ctx, runID)
}

func (c countLists) ListFrom(ctx context.Context, runID string, from int64) ([]checkpoint.Checkpoint, error) {
	return checkpoint.ListFrom(ctx, c.Store, runID, from)
}

// usageText is a model turn answering text with usage.
func usageText(text string, in, out int64) modeltest.Turn {
	return modeltest.Chunks(model.Chunk{TextDelta: text, Usage: &model.Usage{InputTokens: in, OutputTokens: out}, FinishReason: model.FinishStop})
}

// messageNode is the input and output of an agent node: the agent gets
// prefix and the topic, and its answer's message is appended to Log.
func messageNode(prefix string) (func(st) (any, error), func(st, json.RawMessage) (st, error)) {
	in := func(s st) (any, error) { return prefix + s.Topic, nil }
	out := func(s st, raw json.RawMessage) (st, error) {
		var o map[string]any
		err := json.Unmarshal(raw, &o)
		s.Log = append(s.Log, fmt.Sprint(o["message"]))
		return s, err
	}
	return in, out
}

// snapWorkload is a run that waits several times; answer answers the first
// question it waits for.
type snapWorkload struct {
	name  string
	input any
	build func(t *testing.T) (a agent.Agent, effects func() string)
	check func(t *testing.T, o snapOutcome) // what the run must give, either way
	// crashAfter, when set, names an agent: the store fails (as a kill
	// would) the first save after that agent's run ended, once; the run is
	// then resumed without answers.
	crashAfter string
}

// errCrash is the failure of crashAfter's save.
var errCrash = errors.New("the process died")

// crashStore fails the first Put after a checkpoint holding the end (not
// an interruption) of a run of agent after.
type crashStore struct {
	checkpoint.Store
	after   string
	primed  *atomic.Bool
	crashed *atomic.Bool
}

func (c crashStore) Put(ctx context.Context, cp checkpoint.Checkpoint) error {
	if c.primed.Load() && !c.crashed.Load() {
		c.crashed.Store(true)
		return errCrash
	}
	if err := c.Store.Put(ctx, cp); err != nil {
		return err
	}
	var evs []struct {
		Kind  string          `json:"kind"`
		Agent string          `json:"agent"`
		Err   json.RawMessage `json:"error"`
	}
	_ = json.Unmarshal(cp.Events, &evs)
	for _, ev := range evs {
		if ev.Kind == "run_end" && ev.Agent == c.after && len(ev.Err) == 0 {
			c.primed.Store(true)
		}
	}
	return nil
}

func snapWorkloads() []snapWorkload {
	chainOf := func(n int, asks ...int) func(t *testing.T) (agent.Agent, func() string) {
		return func(t *testing.T) (agent.Agent, func() string) {
			runs := make([]atomic.Int32, n)
			g := graph.New[st](graph.Config{MaxSteps: n + 10}).Reducer("log", graph.Append())
			prev := graph.START
			for i := range n {
				name := "n" + strconv.Itoa(i)
				g.Node(name, counted(&runs[i], name)).Edge(prev, name)
				prev = name
				if slices.Contains(asks, i) {
					ask := "ask" + strconv.Itoa(i)
					askNode(g, ask).Edge(prev, ask)
					prev = ask
				}
			}
			g.Edge(prev, graph.END)
			return compile(t, g), func() string {
				var out []int32
				for i := range runs {
					out = append(out, runs[i].Load())
				}
				return fmt.Sprint(out)
			}
		}
	}
	chain := chainOf(8, 2, 5)
	fanOut := func(t *testing.T) (agent.Agent, func() string) {
		var side, after atomic.Int32
		g := graph.New[st](graph.Config{}).Reducer("log", graph.Append()).
			Node("plan", func(_ context.Context, s st) (st, error) { s.Items = []string{"a", "b", "c"}; return s, nil }).
			Node("side", counted(&side, "side")).
			Node("after", counted(&after, "after"))
		askNode(g, "approve")
		g.Edge(graph.START, "plan").Edge("plan", "side").
			Dispatch("plan", sendEach("approve"), "approve").
			Join("after", "approve", "side").Edge("after", graph.END)
		return compile(t, g), func() string { return fmt.Sprint(side.Load(), after.Load()) }
	}
	aiNodes := func(t *testing.T) (agent.Agent, func() string) {
		m := modeltest.New(t, usageText("draft one", 11, 3), usageText("draft two", 13, 5))
		writer := testkit.NewAI(t, agent.AIConfig{Name: "writer", Model: m})
		var tail atomic.Int32
		in, out := messageNode("write about ")
		g := graph.New[st](graph.Config{}).Reducer("log", graph.Append()).
			AgentNode("w1", writer, in, out).AgentNode("w2", writer, in, out).
			Node("tail", counted(&tail, "tail"))
		askNode(g, "review")
		g.Edge(graph.START, "w1").Edge("w1", "w2").Edge("w2", "review").Edge("review", "tail").Edge("tail", graph.END)
		return compile(t, g), func() string { return fmt.Sprint(m.Calls(), tail.Load()) }
	}
	aiTool := func(t *testing.T) (agent.Agent, func() string) {
		var asked, done atomic.Int32
		approve := testkit.Fn(t, "transfer", func(ctx context.Context, _ map[string]any) (map[string]any, error) {
			asked.Add(1)
			ans, err := agent.Ask(ctx, "approval", map[string]any{"amount": 10}, approvalSchema)
			if err != nil {
				return nil, err
			}
			done.Add(1)
			return map[string]any{"answer": json.RawMessage(ans)}, nil
		})
		m := modeltest.New(t,
			modeltest.ToolCalls(modeltest.Call("c1", "transfer", `{}`)),
			modeltest.ToolCalls(modeltest.Call("c2", "transfer", `{}`)),
			usageText("Both transfers are done.", 40, 7))
		a := testkit.NewAI(t, agent.AIConfig{Name: "bank", Model: m, Tools: []agent.Agent{approve}})
		return a, func() string { return fmt.Sprint(m.Calls(), asked.Load(), done.Load()) }
	}
	aiGraphTool := func(t *testing.T) (agent.Agent, func() string) {
		wm := modeltest.New(t, usageText("note one", 5, 2), usageText("note two", 7, 3))
		writer := testkit.NewAI(t, agent.AIConfig{Name: "writer", Model: wm})
		var tail atomic.Int32
		in, out := messageNode("note ")
		g := graph.New[st](graph.Config{Name: "plan", Description: "plans a transfer"}).Reducer("log", graph.Append()).
			AgentNode("w", writer, in, out).Node("tail", counted(&tail, "tail"))
		askNode(g, "confirm")
		g.Edge(graph.START, "w").Edge("w", "confirm").Edge("confirm", "tail").Edge("tail", graph.END)
		// The answer follows the conversation, so that the call the kill
		// cut off is made again with the same answer.
		turn := func(req model.Request) modeltest.Turn {
			results := 0
			for _, msg := range req.Messages {
				results += len(msg.ToolResults())
			}
			switch results {
			case 0:
				return modeltest.ToolCalls(modeltest.Call("c1", "plan", `{"topic":"a"}`))
			case 1:
				return modeltest.ToolCalls(modeltest.Call("c2", "plan", `{"topic":"b"}`))
			}
			return usageText("Planned twice.", 30, 4)
		}
		m := modeltest.New(t, modeltest.Func(turn), modeltest.Func(turn), modeltest.Func(turn), modeltest.Func(turn))
		a := testkit.NewAI(t, agent.AIConfig{Name: "planner", Model: m, Tools: []agent.Agent{compile(t, g)}})
		return a, func() string { return fmt.Sprint(m.Calls(), wm.Calls(), tail.Load()) }
	}
	aiAsksOften := func(t *testing.T) (agent.Agent, func() string) {
		const asks = 36 // past maxChain: the chain of snapshots is made whole again
		var lookups, asked atomic.Int32
		lookup := testkit.Fn(t, "lookup", func(_ context.Context, in map[string]any) (map[string]any, error) {
			lookups.Add(1)
			return map[string]any{"found": in["q"]}, nil
		})
		ask := testkit.Fn(t, "confirm", func(ctx context.Context, _ map[string]any) (map[string]any, error) {
			asked.Add(1)
			ans, err := agent.Ask(ctx, "approval", map[string]any{"step": "next"}, approvalSchema)
			if err != nil {
				return nil, err
			}
			return map[string]any{"answer": json.RawMessage(ans)}, nil
		})
		turn := func(req model.Request) modeltest.Turn {
			done := 0
			for _, msg := range req.Messages {
				done += len(msg.ToolResults())
			}
			switch {
			case done < 2*asks && done%2 == 0:
				return modeltest.ToolCalls(modeltest.Call(fmt.Sprintf("l%d", done), "lookup", fmt.Sprintf(`{"q":%d}`, done)))
			case done < 2*asks:
				return modeltest.ToolCalls(modeltest.Call(fmt.Sprintf("a%d", done), "confirm", `{}`))
			}
			return usageText("Confirmed every step.", 50, 5)
		}
		turns := make([]modeltest.Turn, 2*asks+1)
		for i := range turns {
			turns[i] = modeltest.Func(turn)
		}
		m := modeltest.New(t, turns...)
		a := testkit.NewAI(t, agent.AIConfig{Name: "stepper", Model: m, Tools: []agent.Agent{lookup, ask}, MaxTurns: 2*asks + 5})
		return a, func() string { return fmt.Sprint(m.Calls(), lookups.Load(), asked.Load()) }
	}
	return []snapWorkload{
		{"AI asking 36 times through a tool, between lookups", "step through", aiAsksOften, func(t *testing.T, o snapOutcome) {
			require.Equal(t, "73 36 72", o.Effects, "every model call and lookup once; each ask ran until it asked, then with its answer")
			require.Equal(t, 36, o.Rounds)
			require.Equal(t, model.Usage{InputTokens: 50, OutputTokens: 5}, o.Usage)
			require.Equal(t, 1+2*2*36+1, o.Messages, "the answer carries the whole conversation: the input, each call and result, the answer")
		}, ""},
		{"AI calling a graph tool twice, killed after the first graph ended", "plan two transfers", aiGraphTool, func(t *testing.T, o snapOutcome) {
			require.Equal(t, "4 2 2", o.Effects, "only the model call the kill cut off was made again; no node repeated")
			require.Equal(t, model.Usage{InputTokens: 42, OutputTokens: 9}, o.Usage, "the graph runs' model calls count once each")
		}, "plan"},
		{"graph chain asking twice", st{Topic: "x"}, chain, func(t *testing.T, o snapOutcome) {
			require.Equal(t, "[1 1 1 1 1 1 1 1]", o.Effects, "every node ran once")
			require.JSONEq(t, `{"topic":"x","count":0,"log":["n0","n1","n2","ask2=true","n3","n4","n5","ask5=true","n6","n7"]}`, o.Output)
		}, ""},
		{"long graph chain, its recorder compacted", st{}, chainOf(300, 270, 298), func(t *testing.T, o snapOutcome) {
			require.Equal(t, fmt.Sprint(slices.Repeat([]int32{1}, 300)), o.Effects, "every node ran once")
			var out st
			require.NoError(t, json.Unmarshal([]byte(o.Output), &out))
			require.Len(t, out.Log, 302)
			require.Equal(t, "ask270=true", out.Log[271])
		}, ""},
		{"long graph chain killed late, resumed from its periodic snapshot", st{}, chainOf(300, 298), func(t *testing.T, o snapOutcome) {
			require.Equal(t, fmt.Sprint(slices.Repeat([]int32{1}, 300)), o.Effects, "no node ran twice")
			require.Equal(t, 2, o.Rounds, "one resume after the kill, one with the answer")
		}, "n280"},
		{"graph fan-out of asks answered one by one", st{}, fanOut, func(t *testing.T, o snapOutcome) {
			require.Equal(t, "1 1", o.Effects)
			require.Equal(t, 3, o.Rounds)
		}, ""},
		{"graph of AI nodes, then an ask", st{Topic: "tea"}, aiNodes, func(t *testing.T, o snapOutcome) {
			require.Equal(t, "2 1", o.Effects, "two model calls, the last node once")
			require.Equal(t, model.Usage{InputTokens: 24, OutputTokens: 8}, o.Usage, "the skipped steps' model calls count")
			require.Equal(t, model.FinishStop, o.Finish, "the last AI node's finish, from a step the resume skipped")
		}, ""},
		{"AI whose tool asks twice", "move the money", aiTool, func(t *testing.T, o snapOutcome) {
			require.Equal(t, "3 4 2", o.Effects, "three model calls; each tool ran until it asked, then once more with its answer")
			require.Equal(t, model.Usage{InputTokens: 40, OutputTokens: 7}, o.Usage)
			require.Equal(t, model.FinishStop, o.Finish)
		}, ""},
	}
}

// snapOutcome is what a workload's run gives, compared between a resume
// from snapshots and one from every checkpoint.
type snapOutcome struct {
	Output      string
	Usage       model.Usage
	Cost        float64
	Finish      model.FinishReason
	Invocations int64
	Messages    int
	Effects     string
	Pending     [][]string // the questions listed before each resume
	Rounds      int
	Journal     []string // every checkpoint's kind and every event's kind and run written, sorted
	Lists       int32    // reads of the whole line by Pending and Resume
}

func runSnapWorkload(t *testing.T, w snapWorkload, store checkpoint.Store, snapshots bool) snapOutcome {
	t.Helper()
	ctx := context.Background()
	if !snapshots {
		store = noSnapshots{store}
	}
	var lists atomic.Int32
	var primed, crashed atomic.Bool
	if w.crashAfter != "" {
		store = crashStore{store, w.crashAfter, &primed, &crashed}
	}
	e := engine.New(engine.Config{Checkpoints: countLists{store, &lists}})
	a, effects := w.build(t)
	res, err := e.Invoke(agentrt.WithIDs(ctx, func() string { return "r" }), a, w.input)
	var out snapOutcome
	for ; err != nil; out.Rounds++ {
		if errors.Is(err, errCrash) {
			res, err = e.ResumeInvoke(ctx, a, "r", nil)
			continue
		}
		require.NotNil(t, agentrt.Interrupts(err), "round %d: %v", out.Rounds, err)
		require.Less(t, out.Rounds, 50, "the run keeps asking")
		qs, perr := e.Pending(ctx, "r")
		require.NoError(t, perr)
		require.NotEmpty(t, qs, "the run waits: Pending lists its questions")
		var ids []string
		for _, q := range qs {
			ids = append(ids, q.ID)
		}
		sort.Strings(ids)
		out.Pending = append(out.Pending, ids)
		res, err = e.ResumeInvoke(ctx, a, "r", map[string]json.RawMessage{ids[0]: yes()})
	}
	out.Output, out.Usage, out.Cost, out.Finish = string(res.Output), res.Usage, res.Cost, res.FinishReason
	out.Invocations, out.Messages, out.Effects, out.Lists = res.Invocations, len(res.Messages), effects(), lists.Load()
	require.Equal(t, w.crashAfter != "", crashed.Load(), "the store failed a save as the workload asks")
	hist, err := e.History(ctx, "r")
	require.NoError(t, err)
	for _, step := range hist {
		out.Journal = append(out.Journal, step.Kind+" "+step.Status)
		for _, ev := range step.Events {
			out.Journal = append(out.Journal, fmt.Sprintf("%s:%s", ev.Kind, ev.RunID))
		}
	}
	sort.Strings(out.Journal) // parallel tasks save in any order
	return out
}

// A resume from the snapshots saved with each interrupt gives what a
// resume from every checkpoint gives (output, usage, cost, finish
// reason, invocations, questions, effects), on every store, without
// reading the run's whole line.
func TestResumeFromSnapshotEqualsFullReplay(t *testing.T) {
	// The workloads and store kinds share nothing: each has its own stores,
	// agents and scripted models, so they run in parallel.
	for _, w := range snapWorkloads() {
		t.Run(w.name, func(t *testing.T) {
			t.Parallel()
			full, snap := stores(t), stores(t)
			for kind := range full {
				t.Run(kind, func(t *testing.T) {
					t.Parallel()
					want := runSnapWorkload(t, w, full[kind], false)
					got := runSnapWorkload(t, w, snap[kind], true)
					require.Positive(t, want.Rounds, "the workload waits")
					require.Positive(t, want.Lists, "without snapshots a resume reads the whole line")
					require.Zero(t, got.Lists, "with snapshots neither Pending nor Resume reads the whole line")
					want.Lists = 0
					require.Equal(t, want, got)
					w.check(t, got)
				})
			}
		})
	}
}

// Time travel over a run that has snapshots: History lists every step,
// and a fork at a step before the first snapshot, at the snapshot itself
// (another answer) and between two snapshots continues from there on
// every store, replaying what came before and running only what comes
// after.
func TestHistoryAndForkAcrossSnapshots(t *testing.T) {
	ctx := context.Background()
	for kind, store := range stores(t) {
		t.Run(kind, func(t *testing.T) {
			var runs [4]atomic.Int32
			g := graph.New[st](graph.Config{Name: "chain"}).Reducer("log", graph.Append()).
				Node("n0", counted(&runs[0], "n0")).Node("n1", counted(&runs[1], "n1")).
				Node("n2", counted(&runs[2], "n2")).Node("n3", counted(&runs[3], "n3"))
			askNode(g, "first")
			askNode(g, "second")
			g.Edge(graph.START, "n0").Edge("n0", "n1").Edge("n1", "first").Edge("first", "n2").
				Edge("n2", "second").Edge("second", "n3").Edge("n3", graph.END)
			c := compile(t, g)
			e := durable(store)
			id := fmt.Sprintf("h%x", rand.Uint64())
			_, err := runAs(ctx, e, c, id, st{})
			ie := interrupted(t, err)
			_, err = resumeAs(ctx, e, c, id, answer(ie, yes()))
			ie = interrupted(t, err)
			out, err := resumeAs(ctx, e, c, id, answer(ie, yes()))
			require.NoError(t, err)
			require.Equal(t, []string{"n0", "n1", "first=true", "n2", "second=true", "n3"}, out.Log)

			hist, err := e.History(ctx, id)
			require.NoError(t, err)
			var interrupts []int64
			for _, s := range hist {
				if s.Kind == engine.CheckpointInterrupt {
					interrupts = append(interrupts, s.Seq)
					require.Len(t, s.Questions, 1)
				}
			}
			require.Len(t, interrupts, 2, "an interrupt checkpoint (with its snapshot) at each question")
			states, err := c.History(ctx, e, id)
			require.NoError(t, err)
			require.Len(t, states, 6, "every step is listed, before and after the snapshots")
			require.Less(t, states[0].Seq, interrupts[0])

			counts := func() string {
				return fmt.Sprint(runs[0].Load(), runs[1].Load(), runs[2].Load(), runs[3].Load())
			}
			require.Equal(t, "1 1 1 1", counts())
			finish := func(fork string, answers ...json.RawMessage) st {
				t.Helper()
				var out st
				var err error
				for i := 0; ; i++ {
					var ans map[string]json.RawMessage
					if i > 0 {
						ie := interrupted(t, err)
						require.NotEmpty(t, answers, "the branch asks more often than the original: %v", ie)
						ans = answer(ie, answers[0])
						answers = answers[1:]
					}
					if out, err = resumeAs(ctx, e, c, fork, ans); err == nil {
						return out
					}
					require.Less(t, i, 3)
				}
			}

			// Before the first snapshot: after n0's step.
			before, err := e.Fork(ctx, id, states[0].Seq)
			require.NoError(t, err)
			got := finish(before, json.RawMessage(`{"ok":false}`), yes())
			require.Equal(t, []string{"n0", "n1", "first=false", "n2", "second=true", "n3"}, got.Log)
			require.Equal(t, "1 2 2 2", counts(), "n0 was replayed; the rest ran on the branch")

			// At the first snapshot, with another answer.
			at, err := e.Fork(ctx, id, interrupts[0])
			require.NoError(t, err)
			qs, err := e.Pending(ctx, at)
			require.NoError(t, err)
			require.Len(t, qs, 1, "the fork waits for the question its copy of the interrupt asked")
			out, err = resumeAs(ctx, e, c, at, map[string]json.RawMessage{qs[0].ID: json.RawMessage(`{"ok":false}`)})
			ie = interrupted(t, err)
			out, err = resumeAs(ctx, e, c, at, answer(ie, json.RawMessage(`{"ok":false}`)))
			require.NoError(t, err)
			require.Equal(t, []string{"n0", "n1", "first=false", "n2", "second=false", "n3"}, out.Log)
			require.Equal(t, "1 2 3 3", counts(), "nothing before the question ran again")

			// Between the snapshots: after n2's step.
			var afterN2 int64
			for _, s := range states {
				if len(s.Next) == 1 && s.Next[0] == "second" {
					afterN2 = s.Seq
				}
			}
			require.Greater(t, afterN2, interrupts[0])
			require.Less(t, afterN2, interrupts[1])
			between, err := e.Fork(ctx, id, afterN2)
			require.NoError(t, err)
			got = finish(between, json.RawMessage(`{"ok":false}`))
			require.Equal(t, []string{"n0", "n1", "first=true", "n2", "second=false", "n3"}, got.Log)
			require.Equal(t, "1 2 3 4", counts(), "only n3 ran on this branch")

			orig, err := c.History(ctx, e, id)
			require.NoError(t, err)
			require.Equal(t, states, orig, "the original is intact")
		})
	}
}
