package compose_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync/atomic"
	"testing"

	"github.com/loomwork/loom/agent"
	"github.com/loomwork/loom/compose"
	"github.com/loomwork/loom/engine"
	"github.com/loomwork/loom/internal/testkit"
	"github.com/loomwork/loom/model/modeltest"
	"github.com/stretchr/testify/require"
)

func TestSequenceMergesInputWithEarlierOutputs(t *testing.T) {
	var seen []map[string]any
	record := func(name string, out map[string]any) agent.Agent {
		return testkit.Fn(t, name, func(_ context.Context, in map[string]any) (map[string]any, error) {
			seen = append(seen, in)
			return out, nil
		})
	}
	seq, err := compose.NewSequence(compose.SequenceConfig{Name: "pipeline", Steps: []agent.Agent{
		record("draft", map[string]any{"draft": "d1", "note": "from draft"}),
		record("edit", map[string]any{"final": "f1", "note": "from edit"}),
		record("check", map[string]any{"ok": true}),
	}})
	require.NoError(t, err)
	evs := testkit.Events(t, seq.Run(t.Context(), json.RawMessage(`{"topic":"go"}`)))

	require.Equal(t, []map[string]any{
		{"topic": "go"},
		{"topic": "go", "draft": "d1", "note": "from draft"},
		{"topic": "go", "draft": "d1", "final": "f1", "note": "from edit"},
	}, seen)
	require.Equal(t, []string{"pipeline", "draft", "edit", "check"}, testkit.Starts(evs))
	last := evs[len(evs)-1]
	require.Equal(t, agent.EventRunEnd, last.Kind)
	require.Equal(t, map[string]any{"draft": "d1", "final": "f1", "note": "from edit", "ok": true}, decode(t, last.Output))
	for _, ev := range evs[1 : len(evs)-1] {
		require.Equal(t, evs[0].RunID, ev.ParentID, "steps are nested runs of the sequence")
	}
}

func TestSequenceChainsAIText(t *testing.T) {
	m := modeltest.New(t, modeltest.Text("draft about go"), modeltest.Text("polished draft"))
	writer := testkit.NewAI(t, agent.AIConfig{Name: "writer"})
	editor := testkit.NewAI(t, agent.AIConfig{Name: "editor"})
	seq, err := compose.NewSequence(compose.SequenceConfig{Name: "write", Steps: []agent.Agent{writer, editor}})
	require.NoError(t, err)
	res, err := engine.New(engine.Config{Model: m}).Invoke(t.Context(), seq, "write about go")
	require.NoError(t, err)
	require.Equal(t, "polished draft", res.Text())
	require.Equal(t, "draft about go", m.Request(1).Messages[0].Text(), "the editor reads the writer's answer")
}

func TestSequenceStepFailure(t *testing.T) {
	boom := errors.New("boom")
	bad := testkit.Fn(t, "bad", func(context.Context, map[string]any) (map[string]any, error) { return nil, boom })
	never := testkit.Fn(t, "never", func(context.Context, map[string]any) (map[string]any, error) {
		t.Error("a step after a failure ran")
		return nil, nil
	})
	seq, err := compose.NewSequence(compose.SequenceConfig{Name: "s", Steps: []agent.Agent{testkit.Constant(t, "ok", map[string]any{}), bad, never}})
	require.NoError(t, err)
	_, err = agent.Invoke(t.Context(), seq, map[string]any{})
	require.ErrorIs(t, err, boom)
	var se *compose.StepError
	require.ErrorAs(t, err, &se)
	require.Equal(t, 2, se.Step)
	require.Equal(t, "bad", se.Agent)
}

func TestSequenceRejectsNonObjectOutput(t *testing.T) {
	num, err := agent.NewFunc("num", "A number.", func(context.Context, struct{}) (int, error) { return 16, nil })
	require.NoError(t, err)
	seq, err := compose.NewSequence(compose.SequenceConfig{Name: "s", Steps: []agent.Agent{num}})
	require.NoError(t, err)
	_, err = agent.Invoke(t.Context(), seq, map[string]any{})
	require.ErrorContains(t, err, "got 16, not a JSON object")
}

func TestCompositionConfigErrors(t *testing.T) {
	a := testkit.Constant(t, "a", map[string]any{})
	_, err := compose.NewSequence(compose.SequenceConfig{Name: "s"})
	require.ErrorIs(t, err, agent.ErrInvalidConfig)
	_, err = compose.NewSequence(compose.SequenceConfig{Name: "bad name", Steps: []agent.Agent{a}})
	require.ErrorContains(t, err, "not a valid identifier")
	_, err = compose.NewParallel(compose.ParallelConfig{Name: "p"})
	require.ErrorIs(t, err, agent.ErrInvalidConfig)
	_, err = compose.NewParallel(compose.ParallelConfig{Name: "p", Branches: []agent.Agent{a}, MaxConcurrency: -1})
	require.ErrorContains(t, err, "MaxConcurrency is -1")
	_, err = compose.NewMap(compose.MapConfig{Name: "m", Agent: a})
	require.ErrorContains(t, err, "Field is empty")
	_, err = compose.NewReflect(compose.ReflectConfig{Name: "r", Worker: a})
	require.ErrorContains(t, err, "needs both a Worker and a Reviewer")
	_, err = compose.NewRoute(compose.RouteConfig{Name: "r"})
	require.ErrorContains(t, err, "no Agents")
}

// gate is a branch that reports its start and waits for a release or
// cancellation.
type gate struct {
	running, max atomic.Int64
	started      chan string
	release      chan struct{}
	canceled     atomic.Int64
}

func newGate(n int) *gate {
	return &gate{started: make(chan string, n), release: make(chan struct{})}
}

func (g *gate) agent(t *testing.T, name string, out map[string]any) agent.Agent {
	return testkit.Fn(t, name, func(ctx context.Context, _ map[string]any) (map[string]any, error) {
		n := g.running.Add(1)
		defer g.running.Add(-1)
		for {
			m := g.max.Load()
			if n <= m || g.max.CompareAndSwap(m, n) {
				break
			}
		}
		g.started <- name
		select {
		case <-g.release:
			return out, nil
		case <-ctx.Done():
			g.canceled.Add(1)
			return nil, ctx.Err()
		}
	})
}

func TestParallelMergesInBranchOrderWithCap(t *testing.T) {
	const n, limit = 5, 2
	g := newGate(n)
	branches := make([]agent.Agent, n)
	for i := range branches {
		branches[i] = g.agent(t, fmt.Sprintf("b%d", i), map[string]any{"shared": i, fmt.Sprintf("k%d", i): true})
	}
	p, err := compose.NewParallel(compose.ParallelConfig{Name: "fan", Branches: branches, MaxConcurrency: limit})
	require.NoError(t, err)
	type result struct {
		out json.RawMessage
		err error
	}
	done := make(chan result)
	go func() {
		out, err := agent.Invoke(t.Context(), p, map[string]any{"q": 1})
		done <- result{out, err}
	}()
	for range limit {
		<-g.started
	}
	// Release the branches one at a time; each release lets one more start.
	for i := range n {
		g.release <- struct{}{}
		if i < n-limit {
			<-g.started
		}
	}
	r := <-done
	require.NoError(t, r.err)
	require.Equal(t, int64(limit), g.max.Load(), "never more than the cap at once")
	want := map[string]any{"shared": float64(n - 1)}
	for i := range n {
		want[fmt.Sprintf("k%d", i)] = true
	}
	require.Equal(t, want, decode(t, r.out), "the last-listed branch wins on a shared key")
}

func TestParallelFirstErrorCancelsTheRest(t *testing.T) {
	g := newGate(2)
	boom := errors.New("boom")
	bad := testkit.Fn(t, "bad", func(context.Context, map[string]any) (map[string]any, error) {
		// Fail only once both slow branches are running.
		<-g.started
		<-g.started
		return nil, boom
	})
	p, err := compose.NewParallel(compose.ParallelConfig{Name: "fan", Branches: []agent.Agent{
		g.agent(t, "slow1", nil), bad, g.agent(t, "slow2", nil),
	}})
	require.NoError(t, err)
	_, err = agent.Invoke(t.Context(), p, map[string]any{})
	require.ErrorIs(t, err, boom)
	var be *compose.BranchError
	require.ErrorAs(t, err, &be)
	require.Equal(t, 1, be.Index)
	require.Equal(t, "bad", be.Agent)
	require.Equal(t, int64(2), g.canceled.Load(), "both slow branches were cancelled")
}

func TestParallelCollectErrors(t *testing.T) {
	boom := errors.New("boom")
	bad := testkit.Fn(t, "bad", func(context.Context, map[string]any) (map[string]any, error) { return nil, boom })
	p, err := compose.NewParallel(compose.ParallelConfig{Name: "fan", CollectErrors: true, Branches: []agent.Agent{
		testkit.Constant(t, "a", map[string]any{"a": 1}), bad, testkit.Constant(t, "c", map[string]any{"c": 3}),
	}})
	require.NoError(t, err)
	_, err = agent.Invoke(t.Context(), p, map[string]any{})
	require.ErrorIs(t, err, boom)
	var be *compose.BranchesError
	require.ErrorAs(t, err, &be)
	require.Len(t, be.Results, 3)
	require.JSONEq(t, `{"a":1}`, string(be.Results[0].Output))
	require.ErrorIs(t, be.Results[1].Err, boom)
	require.JSONEq(t, `{"c":3}`, string(be.Results[2].Output))
	require.Contains(t, err.Error(), "1 of 3 branches failed: branch 1 (bad): boom")
}

func TestParallelEventsAllVisibleAndStopEarly(t *testing.T) {
	branches := []agent.Agent{testkit.Constant(t, "a", map[string]any{"a": 1}), testkit.Constant(t, "b", map[string]any{"b": 1}), testkit.Constant(t, "c", map[string]any{"c": 1})}
	p, err := compose.NewParallel(compose.ParallelConfig{Name: "fan", Branches: branches})
	require.NoError(t, err)
	evs := testkit.Events(t, p.Run(t.Context(), json.RawMessage(`{}`)))
	require.ElementsMatch(t, []string{"fan", "a", "b", "c"}, testkit.Starts(evs))
	require.Equal(t, "fan", testkit.Starts(evs)[0])
	ends := 0
	for _, ev := range evs {
		if ev.Kind == agent.EventRunEnd {
			ends++
		}
	}
	require.Equal(t, 4, ends)

	// Stopping after the first event leaves no goroutine behind (goleak).
	for range p.Run(t.Context(), json.RawMessage(`{}`)) {
		break
	}
	n := 0
	for range p.Run(t.Context(), json.RawMessage(`{}`)) {
		if n++; n == 2 {
			break
		}
	}
}

func TestMapOverArrayField(t *testing.T) {
	tests := []struct {
		name  string
		limit int
	}{{"one at a time", 1}, {"two at once", 2}, {"default", 0}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			upper := testkit.Fn(t, "upper", func(_ context.Context, in map[string]any) (map[string]any, error) {
				return map[string]any{"title": fmt.Sprintf("%v/%v", in["prefix"], in["title"]), "item": in["item"]}, nil
			})
			m, err := compose.NewMap(compose.MapConfig{Name: "each", Field: "sections", Agent: upper, MaxConcurrency: tc.limit})
			require.NoError(t, err)
			out, err := agent.Invoke(t.Context(), m, map[string]any{"prefix": "p", "sections": []any{map[string]any{"title": "a"}, map[string]any{"title": "b"}, "c"}})
			require.NoError(t, err)
			require.Equal(t, map[string]any{"sections": []any{
				map[string]any{"title": "p/a", "item": nil},
				map[string]any{"title": "p/b", "item": nil},
				map[string]any{"title": "p/<nil>", "item": "c"},
			}}, decode(t, out))
		})
	}
}

func TestMapErrors(t *testing.T) {
	boom := errors.New("boom")
	failOnB := testkit.Fn(t, "f", func(_ context.Context, in map[string]any) (map[string]any, error) {
		if in["item"] == "b" {
			return nil, boom
		}
		return map[string]any{"ok": in["item"]}, nil
	})
	m, err := compose.NewMap(compose.MapConfig{Name: "each", Field: "xs", Agent: failOnB, MaxConcurrency: 1})
	require.NoError(t, err)
	_, err = agent.Invoke(t.Context(), m, map[string]any{"xs": []string{"a", "b", "c"}})
	var be *compose.BranchError
	require.ErrorAs(t, err, &be)
	require.Equal(t, 1, be.Index)

	_, err = agent.Invoke(t.Context(), m, map[string]any{"xs": "nope"})
	require.ErrorIs(t, err, agent.ErrInvalidInput)
	require.ErrorContains(t, err, `field "xs" must be an array`)

	all, err := compose.NewMap(compose.MapConfig{Name: "each", Field: "xs", Agent: failOnB, CollectErrors: true})
	require.NoError(t, err)
	_, err = agent.Invoke(t.Context(), all, map[string]any{"xs": []string{"a", "b", "c"}})
	var bes *compose.BranchesError
	require.ErrorAs(t, err, &bes)
	require.JSONEq(t, `{"ok":"c"}`, string(bes.Results[2].Output))
}

func reviewer(t *testing.T, verdicts ...compose.Review) (agent.Agent, *[]string) {
	var inputs []string
	i := 0
	return testkit.Fn(t, "reviewer", func(_ context.Context, in map[string]any) (map[string]any, error) {
		inputs = append(inputs, in["message"].(string))
		v := verdicts[i]
		i++
		return map[string]any{"approved": v.Approved, "feedback": v.Feedback}, nil
	}), &inputs
}

func TestReflectUntilApproved(t *testing.T) {
	m := modeltest.New(t, modeltest.Text("draft 1"), modeltest.Text("draft 2"))
	worker := testkit.NewAI(t, agent.AIConfig{Name: "worker"})
	rev, inputs := reviewer(t, compose.Review{Feedback: "too short"}, compose.Review{Approved: true})
	f, err := compose.NewReflect(compose.ReflectConfig{Name: "loop", Worker: worker, Reviewer: rev})
	require.NoError(t, err)
	res, err := engine.New(engine.Config{Model: m}).Invoke(t.Context(), f, "write a poem")
	require.NoError(t, err)
	require.Equal(t, "draft 2", res.Text())
	require.Equal(t, "Request:\nwrite a poem\n\nAnswer to review:\ndraft 1", (*inputs)[0])
	second := m.Request(1).Messages[0].Text()
	require.Contains(t, second, "write a poem")
	require.Contains(t, second, "Your previous answer:\ndraft 1")
	require.Contains(t, second, "A reviewer rejected it: too short")
}

func TestReflectBound(t *testing.T) {
	no := compose.Review{Feedback: "still wrong"}
	tests := []struct {
		name       string
		returnLast bool
	}{{"fails past the bound", false}, {"returns the last output", true}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			n := 0
			worker := testkit.Fn(t, "worker", func(context.Context, map[string]any) (map[string]any, error) {
				n++
				return map[string]any{"message": fmt.Sprintf("try %d", n)}, nil
			})
			rev, _ := reviewer(t, no, no)
			f, err := compose.NewReflect(compose.ReflectConfig{Name: "loop", Worker: worker, Reviewer: rev, MaxRounds: 2, ReturnLast: tc.returnLast})
			require.NoError(t, err)
			out, err := agent.Invoke(t.Context(), f, "go")
			require.Equal(t, 2, n)
			if tc.returnLast {
				require.NoError(t, err)
				require.JSONEq(t, `{"message":"try 2"}`, string(out))
				return
			}
			require.ErrorIs(t, err, compose.ErrNotApproved)
			var ne *compose.NotApprovedError
			require.ErrorAs(t, err, &ne)
			require.Equal(t, 2, ne.Rounds)
			require.JSONEq(t, `{"message":"try 2"}`, string(ne.LastOutput))
			require.EqualError(t, err, "loop: not approved after 2 rounds; last feedback: still wrong (raise MaxRounds, or set ReturnLast to accept the last output)")
		})
	}
}

func TestReflectReviewerWithoutVerdict(t *testing.T) {
	f, err := compose.NewReflect(compose.ReflectConfig{Name: "loop", Worker: testkit.Constant(t, "w", map[string]any{}), Reviewer: testkit.Constant(t, "r", map[string]any{"message": "fine"})})
	require.NoError(t, err)
	_, err = agent.Invoke(t.Context(), f, "go")
	require.ErrorContains(t, err, `no boolean "approved" field`)
}

func TestRouteHandsOff(t *testing.T) {
	m := modeltest.New(t, modeltest.ToolCalls(modeltest.Call("r1", "math", `{"message":"the model's paraphrase","precision":2}`)))
	var got map[string]any
	math := testkit.Fn(t, "math", func(_ context.Context, in map[string]any) (map[string]any, error) {
		got = in
		return map[string]any{"message": "4"}, nil
	})
	poet := testkit.Fn(t, "poet", func(context.Context, map[string]any) (map[string]any, error) {
		t.Error("the poet was not chosen")
		return nil, nil
	})
	rt, err := compose.NewRoute(compose.RouteConfig{Name: "triage", Model: m, Agents: []agent.Agent{math, poet}})
	require.NoError(t, err)
	evs := testkit.Events(t, rt.Run(t.Context(), json.RawMessage(`{"message":"2+2?"}`)))
	require.Equal(t, map[string]any{"message": "2+2?", "precision": float64(2)}, got, "the user's request, with the model's other arguments")
	require.Equal(t, []string{"triage", "math"}, testkit.Starts(evs))
	last := evs[len(evs)-1]
	require.JSONEq(t, `{"message":"4"}`, string(last.Output), "the chosen agent's answer is the result")

	req := m.Request(0)
	require.Len(t, req.Tools, 2)
	require.Equal(t, compose.DefaultRouterInstructions, req.Messages[0].Text())
}

func TestRouteNoChoice(t *testing.T) {
	m := modeltest.New(t, modeltest.Text("I'll answer myself"))
	rt, err := compose.NewRoute(compose.RouteConfig{Name: "triage", Model: m, Agents: []agent.Agent{testkit.Constant(t, "a", nil)}})
	require.NoError(t, err)
	_, err = agent.Invoke(t.Context(), rt, "hi")
	require.ErrorIs(t, err, agent.ErrNoRoute)
}
