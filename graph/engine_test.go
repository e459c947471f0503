package graph_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync/atomic"
	"testing"

	"github.com/loomwork/loom/agent"
	"github.com/loomwork/loom/checkpoint"
	"github.com/loomwork/loom/compose"
	"github.com/loomwork/loom/engine"
	"github.com/loomwork/loom/graph"
	"github.com/loomwork/loom/internal/testkit"
	"github.com/loomwork/loom/model/modeltest"
	"github.com/stretchr/testify/require"
)

// TestEngineResumeContinuesTheGraph: a graph run by an engine, as its
// agent or as a step of a sequence, that stops at its questions is
// continued by the engine's resume: nodes that ran do not run again, a
// resume without the answers keeps it waiting, a second resume of one
// pause is refused, Pending lists each question in turn, and the engine's
// run ends.
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
			g := graph.New[st](graph.Config{Name: "order"}).Reducer("log", graph.Append()).
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
			e := engine.New(engine.Config{Checkpoints: store})

			_, err := e.Invoke(ctx, a, map[string]any{"topic": "order 7"})
			first := interrupted(t, err)
			require.Len(t, first.Questions, 1)
			runID := first.Questions[0].Run
			require.Equal(t, []string{first.Questions[0].ID}, pendingIDs(t, e, runID))

			_, err = e.ResumeInvoke(ctx, a, runID, nil)
			again := interrupted(t, err)
			require.Equal(t, first.Questions[0].ID, again.Questions[0].ID, "without its answer it asks again")
			require.Equal(t, []string{first.Questions[0].ID}, pendingIDs(t, e, runID))

			_, err = e.ResumeInvoke(ctx, a, runID, answer(first, yes()))
			second := interrupted(t, err)
			require.NotEqual(t, first.Questions[0].ID, second.Questions[0].ID)
			require.Equal(t, []string{second.Questions[0].ID}, pendingIDs(t, e, runID), "the engine lists the second question")
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

// losingStore is a checkpoint store that fails every write once lose is
// set: a process that dies.
type losingStore struct {
	checkpoint.Store
	lose func(cp checkpoint.Checkpoint) bool
	dead atomic.Bool
}

func (s *losingStore) Put(ctx context.Context, cp checkpoint.Checkpoint) error {
	if s.dead.Load() || s.lose(cp) {
		s.dead.Store(true)
		return errors.New("the process died")
	}
	return s.Store.Put(ctx, cp)
}

// TestEngineResumeOfAGraphThatHadEnded: a graph whose last step ended in a
// process that died before the engine recorded the run's end is not run
// again by the engine's resume: the run ends with the graph's final state.
func TestEngineResumeOfAGraphThatHadEnded(t *testing.T) {
	ctx := context.Background()
	mem := checkpoint.NewMemory()
	store := &losingStore{Store: mem, lose: func(cp checkpoint.Checkpoint) bool { return cp.Kind == engine.CheckpointEnd }}
	var charged atomic.Int32
	g := graph.New[st](graph.Config{Name: "order"}).Reducer("log", graph.Append()).
		Node("charge", counted(&charged, "charge")).
		Edge(graph.START, "charge").Edge("charge", graph.END)
	c := compile(t, g)
	_, err := runAs(ctx, engine.New(engine.Config{Checkpoints: store}), c, "o", st{})
	require.ErrorContains(t, err, "the process died")
	require.Equal(t, int32(1), charged.Load())

	out, err := resumeAs(ctx, engine.New(engine.Config{Checkpoints: mem}), c, "o", nil)
	require.NoError(t, err)
	require.Equal(t, []string{"charge"}, out.Log)
	require.Equal(t, int32(1), charged.Load(), "charge did not run again")
}

// langchain-ai/docs#2119: the interrupt's configuration was not kept
// between invocations. Here a graph compiled anew over the same store (as
// in another process) sees the question, its payload and its schema, and
// the answer is checked against it.
func TestQuestionSurvivesANewGraphInstance(t *testing.T) {
	ctx := context.Background()
	store := checkpoint.NewMemory()
	build := func() *graph.Compiled[st] {
		g := graph.New[st](graph.Config{}).Reducer("log", graph.Append())
		return compile(t, askNode(g, "ok").Edge(graph.START, "ok").Edge("ok", graph.END))
	}
	_, err := runAs(ctx, durable(store), build(), "t", st{Count: 4})
	require.ErrorIs(t, err, agent.ErrInterrupted)

	fresh, e := build(), durable(store)
	qs, err := e.Pending(ctx, "t")
	require.NoError(t, err)
	require.Len(t, qs, 1)
	require.Equal(t, "approval", qs[0].Kind)
	require.JSONEq(t, `{"node":"ok","count":4}`, string(qs[0].Payload))
	require.JSONEq(t, string(approvalSchema), string(qs[0].Schema))
	_, err = resumeAs(ctx, e, fresh, "t", map[string]json.RawMessage{qs[0].ID: json.RawMessage(`{}`)})
	require.ErrorIs(t, err, agent.ErrInvalidAnswer)
	out, err := resumeAs(ctx, e, fresh, "t", map[string]json.RawMessage{qs[0].ID: yes()})
	require.NoError(t, err)
	require.Equal(t, []string{"ok=true"}, out.Log)
}

// A question two sub-graphs deep is answered through the engine, and no
// level runs its finished nodes again.
func TestNestedSubGraphsResume(t *testing.T) {
	ctx := context.Background()
	var runs atomic.Int32
	inner := graph.New[st](graph.Config{Name: "inner"}).Reducer("log", graph.Append()).
		Node("prep", counted(&runs, "prep"))
	askNode(inner, "deep").Edge(graph.START, "prep").Edge("prep", "deep").Edge("deep", graph.END)
	mid := graph.New[st](graph.Config{Name: "mid"}).Reducer("log", graph.Append())
	pass := func(s st) (st, error) { return st{}, nil }
	back := func(s st, r st) (st, error) { s.Log = append(s.Log, r.Log...); return s, nil }
	graph.SubGraph(mid, "inner", compile(t, inner), pass, back).Edge(graph.START, "inner").Edge("inner", graph.END)
	top := graph.New[st](graph.Config{Name: "top"}).Reducer("log", graph.Append())
	graph.SubGraph(top, "mid", compile(t, mid), pass, back).Edge(graph.START, "mid").Edge("mid", graph.END)
	c := compile(t, top)
	e := durable(nil)

	_, err := runAs(ctx, e, c, "top", st{})
	ie := interrupted(t, err)
	require.Len(t, ie.Questions, 1)
	require.Equal(t, []string{ie.Questions[0].ID}, pendingIDs(t, e, "top"))
	out, err := resumeAs(ctx, e, c, "top", answer(ie, yes()))
	require.NoError(t, err)
	require.Equal(t, []string{"prep", "deep=true"}, out.Log)
	require.Equal(t, int32(1), runs.Load())
}

// An agent node whose agent asks (an AI whose tool needs an approval)
// makes the graph wait with the agent's question; the engine's resume
// continues the agent where it asked, without calling the model again for
// the turns it had.
func TestAgentNodeThatAsksWaitsAndResumes(t *testing.T) {
	ctx := context.Background()
	var deployed atomic.Int32
	confirm := testkit.Fn(t, "deploy", func(ctx context.Context, in map[string]any) (map[string]any, error) {
		ans, err := agent.Ask(ctx, "approval", in, nil)
		if err != nil {
			return nil, err
		}
		deployed.Add(1)
		return map[string]any{"approved": json.RawMessage(ans)}, nil
	})
	m := modeltest.New(t, modeltest.ToolCalls(modeltest.Call("c1", "deploy", `{"env":"prod"}`)), modeltest.Text("deployed to prod"))
	ai := testkit.NewAI(t, agent.AIConfig{Name: "deployer", Model: m, Tools: []agent.Agent{confirm}})
	var after atomic.Int32
	g := graph.New[st](graph.Config{Name: "release"}).Reducer("log", graph.Append()).
		AgentNode("deploy", ai, func(s st) (any, error) { return s.Topic, nil },
			func(s st, out json.RawMessage) (st, error) {
				var o map[string]string
				err := json.Unmarshal(out, &o)
				s.Out = o["message"]
				return s, err
			}).
		Node("notify", counted(&after, "notify")).
		Edge(graph.START, "deploy").Edge("deploy", "notify").Edge("notify", graph.END)
	c := compile(t, g)
	e := durable(nil)
	_, err := runAs(ctx, e, c, "rel", st{Topic: "ship it"})
	ie := interrupted(t, err)
	require.Equal(t, "approval", ie.Questions[0].Kind)
	require.Equal(t, 1, m.Calls())
	require.Equal(t, []string{ie.Questions[0].ID}, pendingIDs(t, e, "rel"))

	out, err := resumeAs(ctx, e, c, "rel", answer(ie, json.RawMessage(`true`)))
	require.NoError(t, err)
	require.Equal(t, "deployed to prod", out.Out)
	require.Equal(t, []string{"notify"}, out.Log)
	require.Equal(t, 2, m.Calls(), "the first model call was replayed, not made again")
	require.Equal(t, int32(1), deployed.Load())
}

// A Go-function node may ask through agent.Ask too: it runs again on the
// resume, and its Once effects before the question are not repeated.
func TestAskInsideAFuncNodeWaitsAndOnceIsKept(t *testing.T) {
	ctx := context.Background()
	var effects atomic.Int32
	c := compile(t, graph.New[st](graph.Config{}).
		Node("inline", func(ctx context.Context, s st) (st, error) {
			n, err := graph.Once(ctx, "charge", func(context.Context) (int32, error) { return effects.Add(1), nil })
			if err != nil {
				return s, err
			}
			ans, err := agent.Ask(ctx, "input", map[string]int32{"charged": n}, nil)
			if err != nil {
				return s, err
			}
			s.Note = string(ans)
			return s, nil
		}).
		Edge(graph.START, "inline").Edge("inline", graph.END))
	e := durable(nil)
	_, err := runAs(ctx, e, c, "q", st{})
	ie := interrupted(t, err)
	out, err := resumeAs(ctx, e, c, "q", answer(ie, json.RawMessage(`"fine"`)))
	require.NoError(t, err)
	require.Equal(t, `"fine"`, out.Note)
	require.Equal(t, int32(1), effects.Load(), "the Once effect ran once")

	_, err = graph.Once(ctx, "x", func(context.Context) (int, error) { return 1, nil })
	require.ErrorIs(t, err, graph.ErrNotInNode)
}

func TestPanickingNodeFailsTheStep(t *testing.T) {
	c := compile(t, graph.New[st](graph.Config{}).Reducer("log", graph.Append()).
		Node("boom", func(context.Context, st) (st, error) { panic("kaboom") }).
		Node("fine", logNode("fine")).
		Edge(graph.START, "boom").Edge(graph.START, "fine").Edge("boom", graph.END).Edge("fine", graph.END))
	_, err := c.Invoke(context.Background(), st{})
	require.ErrorIs(t, err, agent.ErrPanic)
	require.ErrorContains(t, err, "kaboom")
	var ne *graph.NodeError
	require.ErrorAs(t, err, &ne)
	require.Equal(t, "boom", ne.Node)
}

// Time travel over a graph run: History lists the state after each step;
// a fork at a step with an edited state continues from it and leaves the
// original run as it was.
func TestHistoryAndForkWithEdit(t *testing.T) {
	ctx := context.Background()
	var b atomic.Int32
	c := compile(t, graph.New[st](graph.Config{Name: "chain"}).Reducer("log", graph.Append()).
		Node("a", logNode("a")).Node("b", counted(&b, "b")).Node("c", logNode("c")).
		Edge(graph.START, "a").Edge("a", "b").Edge("b", "c").Edge("c", graph.END))
	e := durable(nil)
	out, err := runAs(ctx, e, c, "main", st{Topic: "t"})
	require.NoError(t, err)
	require.Equal(t, []string{"a", "b", "c"}, out.Log)

	hist, err := c.History(ctx, e, "main")
	require.NoError(t, err)
	require.Len(t, hist, 3)
	require.Equal(t, []string{"a"}, hist[0].State.Log)
	require.Equal(t, []string{"b"}, hist[0].Next)
	require.Equal(t, 3, hist[2].Step)
	require.Empty(t, hist[2].Next)

	alt, err := e.Fork(ctx, "main", hist[0].Seq, engine.ForkID("alt"), c.EditState(func(s st) (st, error) {
		s.Log = append(s.Log, "edited")
		return s, nil
	}))
	require.NoError(t, err)
	res, err := resumeAs(ctx, e, c, alt, nil)
	require.NoError(t, err)
	require.Equal(t, []string{"a", "edited", "b", "c"}, res.Log)
	require.Equal(t, int32(2), b.Load(), "b ran again on the branch")

	orig, err := c.History(ctx, e, "main")
	require.NoError(t, err)
	require.Equal(t, []string{"a", "b", "c"}, orig[2].State.Log, "the original is intact")
	_, err = e.Fork(ctx, "main", 1, engine.ForkID("alt"))
	require.ErrorContains(t, err, "a new run id is needed")
	_, err = e.Fork(ctx, "main", 99)
	require.ErrorIs(t, err, agent.ErrInvalidConfig)
	_, err = c.History(ctx, e, "nope")
	require.ErrorIs(t, err, engine.ErrNoCheckpoints)
}

var _ = fmt.Sprint
