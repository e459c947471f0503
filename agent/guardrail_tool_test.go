package agent_test

import (
	"context"
	"encoding/json"
	"errors"
	"iter"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/loomwork/loom/agent"
	"github.com/loomwork/loom/internal/testkit"
	"github.com/loomwork/loom/model/modeltest"
)

// plainAgent makes its stream by hand, without agent.Execute: a guarded
// tool must run it nested, with its guards still checked.
type plainAgent struct{ agent.Agent }

func (p plainAgent) Run(ctx context.Context, _ json.RawMessage) iter.Seq2[agent.Event, error] {
	return func(yield func(agent.Event, error) bool) {
		parent := agent.CurrentRun(ctx)
		yield(agent.Event{Kind: agent.EventRunEnd, RunID: parent.ID + ".plain", ParentID: parent.ID, Agent: p.Name(), Output: json.RawMessage(`{"sum":3}`)}, nil)
	}
}

// TestGuardedToolIsOneRun: a guarded tool's call is one run, the tool's
// body inside it, counted once against the limits; a guardrail agent runs
// nested in it.
func TestGuardedToolIsOneRun(t *testing.T) {
	judge := testkit.Fn(t, "judge", func(context.Context, map[string]any) (map[string]any, error) {
		return map[string]any{"action": "allow"}, nil
	})
	cases := []struct {
		name   string
		guards agent.ToolGuards
		starts []string
		invs   int
	}{
		{"check", agent.ToolGuards{Before: []agent.Guardrail{fixed("ok", agent.Allow(), nil)}}, []string{"bot", "add"}, 2},
		{"agent guardrail", agent.ToolGuards{Before: []agent.Guardrail{{Name: "j", Agent: judge}}}, []string{"bot", "add", "judge"}, 3},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tool, err := agent.GuardTool(addTool(t), tc.guards)
			require.NoError(t, err)
			m := modeltest.New(t, modeltest.ToolCalls(modeltest.Call("c1", "add", `{"a":1,"b":2}`)), modeltest.Text("3"))
			a := testkit.NewAI(t, agent.AIConfig{Name: "bot", Model: m, Tools: []agent.Agent{tool}})
			evs := testkit.Events(t, a.Run(t.Context(), json.RawMessage(`{"message":"1+2"}`)))
			require.Equal(t, tc.starts, testkit.Starts(evs))
			require.JSONEq(t, `{"sum":3}`, string(toolResultSeen(t, m).Content))

			ctx, cancel := agent.WithLimits(t.Context(), agent.Limits{MaxInvocations: tc.invs})
			defer cancel()
			m = modeltest.New(t, modeltest.ToolCalls(modeltest.Call("c1", "add", `{"a":1,"b":2}`)), modeltest.Text("3"))
			a = testkit.NewAI(t, agent.AIConfig{Name: "bot", Model: m, Tools: []agent.Agent{tool}})
			_, err = agent.Invoke(ctx, a, "1+2")
			require.NoError(t, err, "the call fits in %d invocations", tc.invs)
		})
	}
}

// TestGuardedToolNotUsingExecuteRunsNested: a tool whose Run is not
// agent.Execute still passes its guards, as a run nested in the call's.
func TestGuardedToolNotUsingExecuteRunsNested(t *testing.T) {
	var checked int
	g := agent.Guardrail{Name: "count", Check: func(context.Context, agent.GuardInput) (agent.Verdict, error) {
		checked++
		return agent.Reject("no"), nil
	}}
	tool, err := agent.GuardTool(plainAgent{addTool(t)}, agent.ToolGuards{Before: []agent.Guardrail{g}})
	require.NoError(t, err)
	m := modeltest.New(t, modeltest.ToolCalls(modeltest.Call("c1", "add", `{"a":1,"b":2}`)), modeltest.Text("refused"))
	a := testkit.NewAI(t, agent.AIConfig{Name: "bot", Model: m, Tools: []agent.Agent{tool}})
	_, err = agent.Invoke(t.Context(), a, "1+2")
	require.NoError(t, err)
	require.Equal(t, 1, checked)
	require.True(t, toolResultSeen(t, m).IsError, "the refusal reaches the model")

	ok, err := agent.GuardTool(plainAgent{addTool(t)}, agent.ToolGuards{})
	require.NoError(t, err)
	m = modeltest.New(t, modeltest.ToolCalls(modeltest.Call("c1", "add", `{"a":1,"b":2}`)), modeltest.Text("3"))
	a = testkit.NewAI(t, agent.AIConfig{Name: "bot", Model: m, Tools: []agent.Agent{ok}})
	evs := testkit.Events(t, a.Run(t.Context(), json.RawMessage(`{"message":"1+2"}`)))
	require.Equal(t, []string{"bot", "add"}, testkit.Starts(evs))
	var nested bool
	for _, ev := range evs {
		nested = nested || ev.Kind == agent.EventRunEnd && strings.HasSuffix(ev.RunID, ".plain")
	}
	require.True(t, nested, "the tool's own run is nested in the call's")
	require.JSONEq(t, `{"sum":3}`, string(toolResultSeen(t, m).Content))
}

// TestGuardToolOnError: OnError sees refusals and the tool's failures, and
// what it returns is what the model reads, or a halt that ends the run.
func TestGuardToolOnError(t *testing.T) {
	boom := errors.New("boom")
	failing, err := agent.NewFunc("add", "Adds.", func(context.Context, addIn) (addOut, error) { return addOut{}, boom })
	require.NoError(t, err)
	cases := []struct {
		name    string
		tool    agent.Agent
		before  []agent.Guardrail
		onError func(error) error
		seen    error  // what OnError must be given
		result  string // the error the model reads, when the run goes on
		halt    bool
	}{
		{name: "tool failure advised", tool: failing, seen: boom,
			onError: func(err error) error { return errors.New(err.Error() + ": try subtracting") },
			result:  "boom: try subtracting"},
		{name: "refusal rewritten", tool: addTool(t), before: []agent.Guardrail{fixed("no", agent.Reject("too big"), nil)}, seen: agent.ErrTripwire,
			onError: func(error) error { return errors.New("ask for smaller numbers") },
			result:  "ask for smaller numbers"},
		{name: "halt", tool: failing, seen: boom,
			onError: func(err error) error { return agent.Halt(err) }, halt: true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var got []error
			var args []string
			tool, err := agent.GuardTool(tc.tool, agent.ToolGuards{Before: tc.before, OnError: func(_ context.Context, a json.RawMessage, err error) error {
				got, args = append(got, err), append(args, string(a))
				return tc.onError(err)
			}})
			require.NoError(t, err)
			turns := []modeltest.Turn{modeltest.ToolCalls(modeltest.Call("c1", "add", `{"a":1,"b":2}`))}
			if !tc.halt {
				turns = append(turns, modeltest.Text("done"))
			}
			m := modeltest.New(t, turns...)
			a := testkit.NewAI(t, agent.AIConfig{Name: "bot", Model: m, Tools: []agent.Agent{tool}})
			_, runErr := agent.Invoke(t.Context(), a, "1+2")
			require.Len(t, got, 1)
			require.ErrorIs(t, got[0], tc.seen)
			require.JSONEq(t, `{"a":1,"b":2}`, args[0])
			if tc.halt {
				require.ErrorIs(t, runErr, boom)
				return
			}
			require.NoError(t, runErr)
			res := toolResultSeen(t, m)
			require.True(t, res.IsError)
			require.JSONEq(t, `{"error":"`+tc.result+`"}`, string(res.Content))
		})
	}
}
