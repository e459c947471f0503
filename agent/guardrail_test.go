package agent_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/loomwork/loom/agent"
	"github.com/loomwork/loom/internal/testkit"
	"github.com/loomwork/loom/model"
	"github.com/loomwork/loom/model/modeltest"
	"github.com/stretchr/testify/require"
)

// fixed is a guardrail that always answers v, counting its checks.
func fixed(name string, v agent.Verdict, n *atomic.Int32) agent.Guardrail {
	return agent.Guardrail{Name: name, Check: func(context.Context, agent.GuardInput) (agent.Verdict, error) {
		if n != nil {
			n.Add(1)
		}
		return v, nil
	}}
}

// countedAdd is the add tool counting its runs.
func countedAdd(t *testing.T, runs *atomic.Int32) agent.Agent {
	t.Helper()
	f, err := agent.NewFunc("add", "Adds two integers.", func(_ context.Context, in addIn) (addOut, error) {
		runs.Add(1)
		return addOut{Sum: in.A + in.B}, nil
	})
	require.NoError(t, err)
	return f
}

func requireTrip(t *testing.T, err error, guard string, stage agent.Stage) *agent.TripwireError {
	t.Helper()
	require.ErrorIs(t, err, agent.ErrTripwire)
	var tw *agent.TripwireError
	require.ErrorAs(t, err, &tw)
	require.Equal(t, guard, tw.Guardrail)
	require.Equal(t, stage, tw.Stage)
	return tw
}

// toolResultSeen returns the tool result the model got in its second call.
func toolResultSeen(t *testing.T, m *modeltest.Scripted) model.ToolResult {
	t.Helper()
	msgs := m.Request(1).Messages
	results := msgs[len(msgs)-1].ToolResults()
	require.Len(t, results, 1)
	return results[0]
}

func TestGuardrailStageByVerdict(t *testing.T) {
	type outcome struct {
		out      json.RawMessage
		err      error
		m        *modeltest.Scripted
		toolRuns int32
	}
	cases := []struct {
		stage   agent.Stage
		verdict agent.Verdict
		check   func(t *testing.T, o outcome)
	}{
		{agent.StageInput, agent.Allow(), func(t *testing.T, o outcome) {
			require.NoError(t, o.err)
			require.Equal(t, "hi there", o.m.Request(0).Messages[0].Text())
		}},
		{agent.StageInput, agent.Replace(json.RawMessage(`{"message":"[redacted]"}`), "pii"), func(t *testing.T, o outcome) {
			require.NoError(t, o.err)
			require.Equal(t, "[redacted]", o.m.Request(0).Messages[0].Text(), "the model sees the replaced input")
		}},
		{agent.StageInput, agent.Reject("off topic"), func(t *testing.T, o outcome) {
			tw := requireTrip(t, o.err, "g", agent.StageInput)
			require.Equal(t, "off topic", tw.Reason)
			require.Equal(t, "bot", tw.Agent)
			require.Zero(t, o.m.Calls(), "no model call after a tripped input")
		}},
		{agent.StageInput, agent.Trip("jailbreak"), func(t *testing.T, o outcome) {
			requireTrip(t, o.err, "g", agent.StageInput)
			require.Zero(t, o.m.Calls())
		}},
		{agent.StageOutput, agent.Allow(), func(t *testing.T, o outcome) {
			require.NoError(t, o.err)
			require.Equal(t, "the answer", outputText(t, o.out))
		}},
		{agent.StageOutput, agent.Replace(json.RawMessage(`{"message":"[masked]"}`), "secret"), func(t *testing.T, o outcome) {
			require.NoError(t, o.err)
			require.Equal(t, "[masked]", outputText(t, o.out))
		}},
		{agent.StageOutput, agent.Reject("rude"), func(t *testing.T, o outcome) {
			requireTrip(t, o.err, "g", agent.StageOutput)
			require.Nil(t, o.out)
		}},
		{agent.StageOutput, agent.Trip("leak"), func(t *testing.T, o outcome) {
			requireTrip(t, o.err, "g", agent.StageOutput)
		}},
		{agent.StageToolInput, agent.Allow(), func(t *testing.T, o outcome) {
			require.NoError(t, o.err)
			require.JSONEq(t, `{"sum":5}`, string(toolResultSeen(t, o.m).Content))
			require.EqualValues(t, 1, o.toolRuns)
		}},
		{agent.StageToolInput, agent.Replace(json.RawMessage(`{"a":10,"b":3}`), "clamp"), func(t *testing.T, o outcome) {
			require.NoError(t, o.err)
			require.JSONEq(t, `{"sum":13}`, string(toolResultSeen(t, o.m).Content), "the tool ran on the replaced arguments")
		}},
		{agent.StageToolInput, agent.Reject("adding is forbidden"), func(t *testing.T, o outcome) {
			require.NoError(t, o.err, "a rejected call goes back to the model")
			res := toolResultSeen(t, o.m)
			require.True(t, res.IsError)
			require.Contains(t, string(res.Content), "adding is forbidden")
			require.Zero(t, o.toolRuns, "the tool did not run")
			require.Equal(t, "the answer", outputText(t, o.out))
		}},
		{agent.StageToolInput, agent.Trip("dangerous"), func(t *testing.T, o outcome) {
			requireTrip(t, o.err, "g", agent.StageToolInput)
			var he *agent.HaltError
			require.ErrorAs(t, o.err, &he)
			require.Zero(t, o.toolRuns)
			require.Equal(t, 1, o.m.Calls(), "the model is not told")
		}},
		{agent.StageToolOutput, agent.Allow(), func(t *testing.T, o outcome) {
			require.NoError(t, o.err)
			require.JSONEq(t, `{"sum":5}`, string(toolResultSeen(t, o.m).Content))
		}},
		{agent.StageToolOutput, agent.Replace(json.RawMessage(`{"sum":"hidden"}`), "redact"), func(t *testing.T, o outcome) {
			require.NoError(t, o.err)
			require.JSONEq(t, `{"sum":"hidden"}`, string(toolResultSeen(t, o.m).Content))
		}},
		{agent.StageToolOutput, agent.Reject("result unsafe"), func(t *testing.T, o outcome) {
			require.NoError(t, o.err)
			res := toolResultSeen(t, o.m)
			require.True(t, res.IsError)
			require.Contains(t, string(res.Content), "result unsafe")
			require.NotContains(t, string(res.Content), "sum")
			require.EqualValues(t, 1, o.toolRuns)
		}},
		{agent.StageToolOutput, agent.Trip("exfiltration"), func(t *testing.T, o outcome) {
			requireTrip(t, o.err, "g", agent.StageToolOutput)
			require.Equal(t, 1, o.m.Calls())
		}},
	}
	for _, tc := range cases {
		action := tc.verdict.Action
		t.Run(string(tc.stage)+"/"+string(action), func(t *testing.T) {
			var runs atomic.Int32
			g := fixed("g", tc.verdict, nil)
			cfg := agent.AIConfig{Name: "bot"}
			var turns []modeltest.Turn
			switch tc.stage {
			case agent.StageInput:
				cfg.InputGuardrails = []agent.Guardrail{g}
				if action == agent.ActionAllow || action == agent.ActionReplace {
					turns = append(turns, modeltest.Text("the answer"))
				}
			case agent.StageOutput:
				cfg.OutputGuardrails = []agent.Guardrail{g}
				turns = append(turns, modeltest.Text("the answer"))
			default:
				guards := agent.ToolGuards{Before: []agent.Guardrail{g}}
				if tc.stage == agent.StageToolOutput {
					guards = agent.ToolGuards{After: []agent.Guardrail{g}}
				}
				tool, err := agent.GuardTool(countedAdd(t, &runs), guards)
				require.NoError(t, err)
				cfg.Tools = []agent.Agent{tool}
				turns = append(turns, modeltest.ToolCalls(modeltest.Call("c1", "add", `{"a":2,"b":3}`)))
				if action != agent.ActionHalt {
					turns = append(turns, modeltest.Text("the answer"))
				}
			}
			m := modeltest.New(t, turns...)
			cfg.Model = m
			out, err := agent.Invoke(t.Context(), testkit.NewAI(t, cfg), "hi there")
			tc.check(t, outcome{out: out, err: err, m: m, toolRuns: runs.Load()})
			require.Zero(t, m.Remaining(), "every scripted turn was played")
		})
	}
}

func TestGuardrailConfigErrors(t *testing.T) {
	m := modeltest.New(t)
	check := func(context.Context, agent.GuardInput) (agent.Verdict, error) { return agent.Allow(), nil }
	cases := []struct {
		name string
		cfg  agent.AIConfig
		want string
	}{
		{"no name", agent.AIConfig{InputGuardrails: []agent.Guardrail{{Check: check}}}, "has no name"},
		{"neither", agent.AIConfig{OutputGuardrails: []agent.Guardrail{{Name: "x"}}}, "exactly one of Check and Agent"},
		{"duplicate", agent.AIConfig{InputGuardrails: []agent.Guardrail{{Name: "x", Check: check}, {Name: "x", Check: check}}}, "unique"},
		{"hold without guardrails", agent.AIConfig{OutputHold: agent.OutputHold{On: true}}, "no OutputGuardrails"},
		{"negative window", agent.AIConfig{OutputHold: agent.OutputHold{Window: -1}, OutputGuardrails: []agent.Guardrail{{Name: "x", Check: check}}}, "Window is -1"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tc.cfg.Name, tc.cfg.Model = "bot", m
			_, err := agent.NewAI(tc.cfg)
			require.ErrorIs(t, err, agent.ErrInvalidConfig)
			require.ErrorContains(t, err, tc.want)
		})
	}
	_, err := agent.GuardTool(nil, agent.ToolGuards{})
	require.ErrorIs(t, err, agent.ErrInvalidConfig)
	_, err = agent.MaxInputSize(0)
	require.ErrorIs(t, err, agent.ErrInvalidConfig)
	_, err = agent.DenyList(agent.DenyListConfig{Patterns: []string{"("}})
	require.ErrorIs(t, err, agent.ErrInvalidConfig)
}

func TestGuardrailErrorFailsClosed(t *testing.T) {
	boom := errors.New("classifier down")
	m := modeltest.New(t)
	a := testkit.NewAI(t, agent.AIConfig{Name: "bot", Model: m, InputGuardrails: []agent.Guardrail{{Name: "c", Check: func(context.Context, agent.GuardInput) (agent.Verdict, error) {
		return agent.Verdict{}, boom
	}}}})
	_, err := agent.Invoke(t.Context(), a, "hi")
	require.ErrorIs(t, err, boom)
	require.ErrorContains(t, err, "guardrail c on input of bot")
	require.Zero(t, m.Calls())

	a = testkit.NewAI(t, agent.AIConfig{Name: "bot", Model: m, InputGuardrails: []agent.Guardrail{fixed("odd", agent.Verdict{Action: "maybe"}, nil)}})
	_, err = agent.Invoke(t.Context(), a, "hi")
	require.ErrorContains(t, err, `action "maybe"`)
}

func TestGuardrailsRunInOrderOnReplacedContent(t *testing.T) {
	var seen []string
	rec := func(name string, v agent.Verdict) agent.Guardrail {
		return agent.Guardrail{Name: name, Check: func(_ context.Context, in agent.GuardInput) (agent.Verdict, error) {
			seen = append(seen, name+":"+in.Message)
			return v, nil
		}}
	}
	m := modeltest.New(t, modeltest.Text("ok"))
	a := testkit.NewAI(t, agent.AIConfig{Name: "bot", Model: m, InputGuardrails: []agent.Guardrail{
		rec("first", agent.Replace(json.RawMessage(`{"message":"two"}`), "")),
		rec("second", agent.Allow()),
	}})
	_, err := agent.Invoke(t.Context(), a, "one")
	require.NoError(t, err)
	require.Equal(t, []string{"first:one", "second:two"}, seen)
}

func TestGuardToolsetGuardsEveryTool(t *testing.T) {
	var runs atomic.Int32
	ts := agent.ToolsetFunc(func(context.Context) ([]agent.Agent, error) {
		return []agent.Agent{countedAdd(t, &runs)}, nil
	})
	var seen atomic.Int32
	guarded, err := agent.GuardToolset(ts, agent.ToolGuards{After: []agent.Guardrail{fixed("after", agent.Replace(json.RawMessage(`{"sum":0}`), "zeroed"), &seen)}})
	require.NoError(t, err)
	m := modeltest.New(t, modeltest.ToolCalls(modeltest.Call("c1", "add", `{"a":2,"b":3}`)), modeltest.Text("0"))
	a := testkit.NewAI(t, agent.AIConfig{Name: "bot", Model: m, Toolsets: []agent.Toolset{guarded}})
	_, err = agent.Invoke(t.Context(), a, "2+3")
	require.NoError(t, err)
	require.EqualValues(t, 1, runs.Load())
	require.EqualValues(t, 1, seen.Load())
	require.JSONEq(t, `{"sum":0}`, string(toolResultSeen(t, m).Content))
	require.Equal(t, "add", m.Request(0).Tools[0].Name, "the guarded tool keeps its name and schema")
	require.Contains(t, string(m.Request(0).Tools[0].Schema), `"a"`)

	_, err = agent.GuardToolset(nil, agent.ToolGuards{})
	require.ErrorIs(t, err, agent.ErrInvalidConfig)
}

func TestOutputReplacementMustBeAnOutput(t *testing.T) {
	m := modeltest.New(t, modeltest.Text("hi"))
	a := testkit.NewAI(t, agent.AIConfig{Name: "bot", Model: m, OutputGuardrails: []agent.Guardrail{fixed("bare", agent.Replace(json.RawMessage(`"just text"`), ""), nil)}})
	_, err := agent.Invoke(t.Context(), a, "hi")
	require.ErrorContains(t, err, `replace it with an object such as {"message": "…"}`)

	m = modeltest.New(t, modeltest.JSON(map[string]int{"n": 1}))
	schema := json.RawMessage(`{"type":"object","properties":{"n":{"type":"integer"}},"required":["n"]}`)
	a = testkit.NewAI(t, agent.AIConfig{Name: "bot", Model: m, OutputSchema: schema, OutputGuardrails: []agent.Guardrail{fixed("wrong", agent.Replace(json.RawMessage(`{"n":"one"}`), ""), nil)}})
	_, err = agent.Invoke(t.Context(), a, "hi")
	require.ErrorIs(t, err, agent.ErrInvalidOutput)
	require.ErrorContains(t, err, "guardrail wrong replaced the output with one that fails its schema")
}

func TestGuardToolAroundASubAgent(t *testing.T) {
	sub := testkit.NewAI(t, agent.AIConfig{Name: "researcher", Description: "Finds things.", Model: modeltest.New(t, modeltest.Text("found token ghp_"+strings.Repeat("z", 36)))})
	deny, err := agent.DenyList(agent.DenyListConfig{Mask: true})
	require.NoError(t, err)
	guarded, err := agent.GuardTool(sub, agent.ToolGuards{After: []agent.Guardrail{deny}})
	require.NoError(t, err)
	require.Equal(t, "ai", guarded.Info().Kind, "the guarded tool keeps the tool's kind")
	m := modeltest.New(t, modeltest.ToolCalls(modeltest.Call("c1", "researcher", `{"message":"find the token"}`)), modeltest.Text("done"))
	a := testkit.NewAI(t, agent.AIConfig{Name: "lead", Model: m, Tools: []agent.Agent{guarded}})
	_, err = agent.Invoke(t.Context(), a, "go")
	require.NoError(t, err)
	require.JSONEq(t, `{"message":"found token ghp_********"}`, string(toolResultSeen(t, m).Content), "the lead's model sees the sub-agent's answer masked")
}
