package engine_test

import (
	"context"
	"encoding/json"
	"sync/atomic"
	"testing"

	"github.com/loomwork/loom/agent"

	"github.com/loomwork/loom/agent/agentrt"
	"github.com/loomwork/loom/checkpoint"
	"github.com/loomwork/loom/engine"
	"github.com/loomwork/loom/internal/testkit"
	"github.com/loomwork/loom/model"
	"github.com/loomwork/loom/model/modeltest"
	"github.com/stretchr/testify/require"
)

// stepWith returns the seq of the first checkpoint whose events include
// one that ok accepts.
func stepWith(t *testing.T, hist []engine.Step, ok func(agent.Event) bool) int64 {
	t.Helper()
	for _, s := range hist {
		for _, ev := range s.Events {
			if ok(ev) {
				return s.Seq
			}
		}
	}
	t.Fatal("no step holds the event")
	return 0
}

// Time travel over an AI run: History lists its steps; a fork at a model
// response with another response continues from there, without calling
// the model or the tools for the steps before it, and leaves the original
// run as it was.
func TestForkAIRunWithAnotherResponse(t *testing.T) {
	ctx := context.Background()
	store := checkpoint.NewMemory()
	e := engine.New(engine.Config{Checkpoints: store})
	var lookups atomic.Int32
	lookup := testkit.Fn(t, "lookup", func(context.Context, map[string]any) (map[string]any, error) {
		lookups.Add(1)
		return map[string]any{"temp": 21}, nil
	})
	build := func(m model.Model) agent.Agent {
		return testkit.NewAI(t, agent.AIConfig{Name: "weather", Model: m, Tools: []agent.Agent{lookup}})
	}
	m := modeltest.New(t, modeltest.ToolCalls(modeltest.Call("c1", "lookup", `{}`)), modeltest.Text("It is 21 degrees."))
	res, err := e.Invoke(agentrt.WithIDs(ctx, func() string { return "w" }), build(m), "weather?")
	require.NoError(t, err)
	require.Equal(t, "It is 21 degrees.", res.Text())

	hist, err := e.History(ctx, "w")
	require.NoError(t, err)
	require.Equal(t, engine.CheckpointStart, hist[0].Kind)
	require.Equal(t, engine.CheckpointEnd, hist[len(hist)-1].Kind)
	require.Equal(t, "done", hist[len(hist)-1].Status)
	responses := 0
	for _, s := range hist {
		for _, ev := range s.Events {
			if ev.Kind == agent.EventModelResponse {
				responses++
			}
		}
	}
	require.Equal(t, 2, responses)
	first := stepWith(t, hist, func(ev agent.Event) bool { return ev.Kind == agent.EventModelResponse })
	last := hist[len(hist)-2].Seq // the final answer's response, before the end

	cases := []struct {
		name    string
		seq     int64
		text    string
		lookups int32
	}{
		{"the tool call replaced by an answer", first, "No need to look: sunny.", 1},
		{"the final answer replaced", last, "Warm: 21.", 1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			fork, err := e.Fork(ctx, "w", tc.seq, engine.ReplaceResponse(tc.text))
			require.NoError(t, err)
			require.NotEqual(t, "w", fork)
			res, err := e.ResumeInvoke(ctx, build(modeltest.New(t)), fork, nil) // no model call allowed
			require.NoError(t, err)
			require.Equal(t, tc.text, res.Text())
			require.Equal(t, tc.lookups, lookups.Load(), "the tool ran once, before the fork")
		})
	}
	again, err := e.History(ctx, "w")
	require.NoError(t, err)
	require.Equal(t, hist, again, "the original run is as it was")

	_, err = e.Fork(ctx, "w", hist[0].Seq, engine.ForkID("refused"), engine.ReplaceResponse("x"))
	require.ErrorIs(t, err, agent.ErrInvalidConfig, "the start holds no model response")
	_, err = e.History(ctx, "refused")
	require.ErrorIs(t, err, engine.ErrNoCheckpoints, "a refused fork leaves no run behind")
	_, err = e.Fork(ctx, "w", 1, engine.ForkID("a.b"))
	require.ErrorIs(t, err, agent.ErrInvalidConfig)
}

// A fork at a question's checkpoint, resumed with another answer, changes
// the answer: the model call before the question is not made again.
func TestForkChangesAnAnswer(t *testing.T) {
	ctx := context.Background()
	e := engine.New(engine.Config{Checkpoints: checkpoint.NewMemory()})
	var deployed atomic.Int32
	confirm := testkit.Fn(t, "confirm", func(ctx context.Context, in map[string]any) (map[string]any, error) {
		ans, err := agent.Ask(ctx, "approval", in, nil)
		if err != nil {
			return nil, err
		}
		var ok bool
		_ = json.Unmarshal(ans, &ok)
		if ok {
			deployed.Add(1)
		}
		return map[string]any{"approved": ok}, nil
	})
	build := func(m model.Model) agent.Agent {
		return testkit.NewAI(t, agent.AIConfig{Name: "deployer", Model: m, Tools: []agent.Agent{confirm}})
	}
	m := modeltest.New(t, modeltest.ToolCalls(modeltest.Call("c1", "confirm", `{"env":"prod"}`)), modeltest.Text("deployed"))
	_, err := e.Invoke(agentrt.WithIDs(ctx, func() string { return "d" }), build(m), "deploy")
	var ie *agent.InterruptedError
	require.ErrorAs(t, err, &ie)
	res, err := e.ResumeInvoke(ctx, build(m), "d", map[string]json.RawMessage{ie.Questions[0].ID: json.RawMessage(`true`)})
	require.NoError(t, err)
	require.Equal(t, "deployed", res.Text())
	require.Equal(t, 2, m.Calls())

	hist, err := e.History(ctx, "d")
	require.NoError(t, err)
	var waited, answered int64
	for _, s := range hist {
		if s.Kind == engine.CheckpointInterrupt {
			waited = s.Seq
			require.Equal(t, ie.Questions, s.Questions)
		}
		if s.Kind == engine.CheckpointResume {
			answered = s.Seq
			require.JSONEq(t, `true`, string(s.Answers[ie.Questions[0].ID]))
		}
	}
	require.NotZero(t, waited)
	require.Greater(t, answered, waited)

	fork, err := e.Fork(ctx, "d", waited, engine.ForkID("d2"))
	require.NoError(t, err)
	qs, err := e.Pending(ctx, fork)
	require.NoError(t, err)
	require.Len(t, qs, 1)
	require.Equal(t, "d2", qs[0].Run)
	require.Equal(t, "approval", qs[0].Kind)
	m2 := modeltest.New(t, modeltest.Text("not deployed"))
	res, err = e.ResumeInvoke(ctx, build(m2), fork, map[string]json.RawMessage{qs[0].ID: json.RawMessage(`false`)})
	require.NoError(t, err)
	require.Equal(t, "not deployed", res.Text())
	require.Equal(t, 1, m2.Calls(), "only the call after the answer was made")
	require.Equal(t, int32(1), deployed.Load())
	orig, err := e.Pending(ctx, "d")
	require.NoError(t, err)
	require.Empty(t, orig, "the original run ended")
}
