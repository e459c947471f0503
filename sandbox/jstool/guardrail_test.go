package jstool

import (
	"context"
	"encoding/json"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/loomwork/loom/agent"
	"github.com/loomwork/loom/model/modeltest"
	"github.com/loomwork/loom/sandbox"
)

// countingExecutor counts the runs that reach the executor.
type countingExecutor struct {
	sandbox.Executor
	runs atomic.Int32
}

func (c *countingExecutor) Run(ctx context.Context, code string) (*sandbox.Result, error) {
	c.runs.Add(1)
	return c.Executor.Run(ctx, code)
}

func TestAdmissionGuardrailRejectsBeforeTheExecutor(t *testing.T) {
	deep := strings.Repeat("[", 300) + strings.Repeat("]", 300)
	cases := []struct {
		name, args string
		want       string // in the error the model reads; empty: the code ran
	}{
		{"fine", `{"code":"1 + 1"}`, ""},
		{"too deep", `{"code":"` + deep + `"}`, "nested too deeply"},
		{"too large", `{"code":"` + strings.Repeat("1;", 40<<10) + `"}`, "too large"},
		{"syntax", `{"code":"let = ;"}`, "SyntaxError"},
		{"alias field", `{"jsCode":"` + deep + `"}`, "nested too deeply"},
		{"no code", `{}`, "no code"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			exec := &countingExecutor{Executor: newTestInProcess(t, sandbox.InProcessConfig{})}
			tool, err := New(exec, Config{})
			require.NoError(t, err)
			g, err := AdmissionGuardrail(sandbox.Limits{})
			require.NoError(t, err)
			guarded, err := agent.GuardTool(tool, agent.ToolGuards{Before: []agent.Guardrail{g}})
			require.NoError(t, err)
			m := modeltest.New(t, modeltest.ToolCalls(modeltest.Call("c1", Name, tc.args)), modeltest.Text("ok"))
			a, err := agent.NewAI(agent.AIConfig{Name: "coder", Model: m, Tools: []agent.Agent{guarded}})
			require.NoError(t, err)
			_, err = agent.Invoke(t.Context(), a, "compute")
			require.NoError(t, err)
			msgs := m.Request(1).Messages
			res := msgs[len(msgs)-1].ToolResults()[0]
			if tc.want == "" {
				require.False(t, res.IsError, "%s", res.Content)
				require.EqualValues(t, 1, exec.runs.Load())
				return
			}
			require.True(t, res.IsError)
			require.Contains(t, string(res.Content), tc.want)
			require.Zero(t, exec.runs.Load(), "refused code never reaches the executor")
		})
	}
}

func TestAdmissionGuardrailRefusesNegativeLimits(t *testing.T) {
	_, err := AdmissionGuardrail(sandbox.Limits{SourceBytes: -1})
	require.ErrorIs(t, err, agent.ErrInvalidConfig)
}

// TestGuardrailsReadTheDecodedInput: a guardrail around the tool reads the
// arguments as the tool decoded them (an Input, with the alias field kept
// apart), so the code is not parsed again for the guardrails; arguments
// that fail the schema reach it undecoded.
func TestGuardrailsReadTheDecodedInput(t *testing.T) {
	cases := []struct {
		name, args string
		want       any
	}{
		{"code", `{"code":"1 + 1"}`, Input{Code: "1 + 1"}},
		{"alias", `{"jsCode":"2"}`, Input{JSCode: "2"}},
		{"unknown field", `{"code":"1","lang":"js"}`, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tool, err := New(newTestInProcess(t, sandbox.InProcessConfig{}), Config{})
			require.NoError(t, err)
			var seen []any
			look := agent.Guardrail{Name: "look", Check: func(_ context.Context, in agent.GuardInput) (agent.Verdict, error) {
				seen = append(seen, in.Args)
				return agent.Allow(), nil
			}}
			adm, err := AdmissionGuardrail(sandbox.Limits{})
			require.NoError(t, err)
			guarded, err := agent.GuardTool(tool, agent.ToolGuards{Before: []agent.Guardrail{adm, look}})
			require.NoError(t, err)
			_, err = agent.Invoke(t.Context(), guarded, json.RawMessage(tc.args))
			require.Equal(t, []any{tc.want}, seen)
			if tc.want == nil {
				require.ErrorIs(t, err, agent.ErrInvalidInput)
				require.ErrorContains(t, err, "lang: unknown field")
				return
			}
			require.NoError(t, err)
		})
	}
}
