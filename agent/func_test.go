package agent_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/loomwork/loom/agent"
	"github.com/stretchr/testify/require"
)

type snippet struct {
	Code string `json:"code" jsonschema:"description=JavaScript to run"`
	N    int    `json:"n,omitempty"`
}

func TestFuncValidatesInput(t *testing.T) {
	f, err := agent.NewFunc("run", "Runs code.", func(_ context.Context, in snippet) (string, error) { return in.Code, nil })
	require.NoError(t, err)
	tests := []struct {
		name, input, want string
	}{
		{"missing required", `{}`, "invalid input for run: code: required"},
		{"wrong type", `{"code":"1","n":"3"}`, "invalid input for run: n: expected integer, got string"},
		{"not an object", `[1]`, "invalid input for run: expected object, got array"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := agent.Invoke(t.Context(), f, json.RawMessage(tt.input))
			require.ErrorIs(t, err, agent.ErrInvalidInput)
			require.EqualError(t, err, tt.want)
		})
	}
	out, err := agent.Invoke(t.Context(), f, snippet{Code: "1+1"})
	require.NoError(t, err)
	require.JSONEq(t, `"1+1"`, string(out))
	require.JSONEq(t, `{"type":"object","properties":{"code":{"type":"string","description":"JavaScript to run"},"n":{"type":"integer"}},"required":["code"],"additionalProperties":false}`, string(f.Info().InputSchema))
}

func TestInvokeNilAgentAndBadInput(t *testing.T) {
	_, err := agent.Invoke(t.Context(), nil, "x")
	require.ErrorIs(t, err, agent.ErrInvalidConfig)
	_, err = agent.Invoke(t.Context(), addTool(t), json.RawMessage(`{"a":`))
	require.ErrorIs(t, err, agent.ErrInvalidInput)
	_, err = agent.Invoke(t.Context(), addTool(t), func() {})
	require.ErrorIs(t, err, agent.ErrInvalidInput)
}

func TestFuncPanicIsError(t *testing.T) {
	f, err := agent.NewFunc("boom", "", func(context.Context, struct{}) (int, error) { panic("kaboom") })
	require.NoError(t, err)
	_, err = agent.Invoke(t.Context(), f, nil)
	require.ErrorIs(t, err, agent.ErrPanic)
	require.Contains(t, err.Error(), "kaboom")
}

func TestFuncErrorWraps(t *testing.T) {
	sentinel := errors.New("nope")
	f, err := agent.NewFunc("no", "", func(context.Context, struct{}) (int, error) { return 0, sentinel })
	require.NoError(t, err)
	_, err = agent.Invoke(t.Context(), f, nil)
	require.ErrorIs(t, err, sentinel)
}

func TestConstructorErrors(t *testing.T) {
	add := addTool(t)
	okFn := func(context.Context, struct{}) (int, error) { return 0, nil }
	tests := []struct {
		name string
		make func() error
		want string
	}{
		{"func empty name", func() error { _, err := agent.NewFunc("", "", okFn); return err }, "agent name is empty"},
		{"func bad name", func() error { _, err := agent.NewFunc("my tool", "", okFn); return err }, `agent name "my tool" is not a valid identifier`},
		{"func nil fn", func() error {
			_, err := agent.NewFunc[struct{}, int]("f", "", nil)
			return err
		}, "nil function"},
		{"func scalar input", func() error {
			_, err := agent.NewFunc("f", "", func(context.Context, int) (int, error) { return 0, nil })
			return err
		}, `has schema type "integer"; use a struct or a map`},
		{"func unschemable input", func() error {
			_, err := agent.NewFunc("f", "", func(context.Context, struct{ C chan int }) (int, error) { return 0, nil })
			return err
		}, "cannot generate a JSON schema"},
		{"ai empty config", func() error { _, err := agent.NewAI(agent.AIConfig{}); return err }, "agent name is empty"},
		{"ai duplicate tools", func() error {
			_, err := agent.NewAI(agent.AIConfig{Name: "a", Tools: []agent.Agent{add, add}})
			return err
		}, `two tools are named "add"`},
		{"ai nil tool", func() error { _, err := agent.NewAI(agent.AIConfig{Name: "a", Tools: []agent.Agent{nil}}); return err }, "tool 0 is nil"},
		{"ai bad template", func() error { _, err := agent.NewAI(agent.AIConfig{Name: "a", Instructions: "{{.x"}); return err }, "instructions template"},
		{"ai bad option", func() error {
			t := 3.0
			_, err := agent.NewAI(agent.AIConfig{Name: "a", Options: modelOptions(&t)})
			return err
		}, "invalid option temperature=3: must be in [0, 2]"},
		{"ai router without tools", func() error { _, err := agent.NewAI(agent.AIConfig{Name: "a", ToolChoice: agent.Router()}); return err }, `tool choice "router" needs at least one tool`},
		{"ai named tool missing", func() error {
			_, err := agent.NewAI(agent.AIConfig{Name: "a", Tools: []agent.Agent{add}, ToolChoice: toolChoice("sub")})
			return err
		}, `tool choice names "sub"`},
		{"ai bad output schema", func() error {
			_, err := agent.NewAI(agent.AIConfig{Name: "a", OutputSchema: json.RawMessage(`{"type":`)})
			return err
		}, "output schema"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.make()
			require.Error(t, err)
			require.Contains(t, err.Error(), tt.want)
		})
	}
}
