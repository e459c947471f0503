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

// plainAgent makes its stream by hand, without agentrt.Execute: a guarded
// tool must run it nested, with its guards still checked.
type plainAgent struct{ agent.Agent }

func (p plainAgent) Run(ctx context.Context, _ json.RawMessage) iter.Seq2[agent.Event, error] {
	return func(yield func(agent.Event, error) bool) {
		parent := agent.CurrentRun(ctx)
		yield(agent.Event{Kind: agent.EventRunEnd, RunID: parent.ID + ".plain", ParentID: parent.ID, Agent: p.Info().Name, Output: json.RawMessage(`{"sum":3}`)}, nil)
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
// agentrt.Execute still passes its guards, as a run nested in the call's.
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

type snippetArgs struct {
	Code string `json:"code"`
}

// TestGuardedToolDecodesArgumentsOnce: the guardrails of a guarded Func
// read the arguments as the Func decodes them (GuardInput.Args), and the
// Func runs on that same value: one decode per call. Arguments a
// guardrail replaces are decoded anew; arguments that fail the schema
// reach the guardrails undecoded and fail the call with the field named.
func TestGuardedToolDecodesArgumentsOnce(t *testing.T) {
	cases := []struct {
		name     string
		args     string
		replace  string // the first guardrail's replacement, if any
		seen     []string
		ran      string
		errField string
	}{
		{name: "shared", args: `{"code":"a"}`, seen: []string{"a", "a"}, ran: "a"},
		{name: "replaced", args: `{"code":"a"}`, replace: `{"code":"b"}`, seen: []string{"a", "b"}, ran: "b"},
		{name: "fails the schema", args: `{"code":1}`, seen: []string{"<nil>", "<nil>"}, errField: "code: expected string, got number"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var ranOn *snippetArgs
			fn, err := agent.NewFunc("run", "Runs code.", func(_ context.Context, in *snippetArgs) (string, error) {
				ranOn = in
				return in.Code, nil
			})
			require.NoError(t, err)
			var seen []*snippetArgs
			var seenCode []string
			check := func(name, replace string) agent.Guardrail {
				return agent.Guardrail{Name: name, Check: func(_ context.Context, in agent.GuardInput) (agent.Verdict, error) {
					a, _ := in.Args.(*snippetArgs)
					seen = append(seen, a)
					if a == nil {
						seenCode = append(seenCode, "<nil>")
					} else {
						seenCode = append(seenCode, a.Code)
					}
					if replace != "" {
						return agent.Replace(json.RawMessage(replace), "rewritten"), nil
					}
					return agent.Allow(), nil
				}}
			}
			guarded, err := agent.GuardTool(fn, agent.ToolGuards{Before: []agent.Guardrail{check("first", tc.replace), check("second", "")}})
			require.NoError(t, err)
			out, err := agent.Invoke(t.Context(), guarded, json.RawMessage(tc.args))
			require.Equal(t, tc.seen, seenCode)
			if tc.errField != "" {
				require.ErrorIs(t, err, agent.ErrInvalidInput)
				require.ErrorContains(t, err, tc.errField)
				require.Nil(t, ranOn)
				return
			}
			require.NoError(t, err)
			require.JSONEq(t, `"`+tc.ran+`"`, string(out))
			require.Same(t, seen[len(seen)-1], ranOn, "the Func runs on the value its last guardrail read")
			if tc.replace == "" {
				require.Same(t, seen[0], seen[1], "the guardrails share one decode")
			} else {
				require.NotSame(t, seen[0], seen[1], "replaced arguments are decoded anew")
			}
		})
	}
}
