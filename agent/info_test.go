package agent_test

import (
	"context"
	"encoding/json"
	"iter"
	"testing"

	"github.com/loomwork/loom/agent"
	"github.com/loomwork/loom/agent/agentrt"
	"github.com/loomwork/loom/model/modeltest"
	"github.com/stretchr/testify/require"
)

type sumIn struct {
	A int `json:"a"`
	B int `json:"b"`
}

type sumOut struct {
	Sum int `json:"sum"`
}

func sumFn(_ context.Context, in sumIn) (sumOut, error) { return sumOut{in.A + in.B}, nil }

// TestInfoOfEachAgent checks what each of agent's own agents says of
// itself: the kind traces show, its schemas, and whether its run checks
// its input (what an MCP server reads to skip its own check).
func TestInfoOfEachAgent(t *testing.T) {
	sum, err := agent.NewFunc("sum", "Adds a and b.", sumFn)
	require.NoError(t, err)
	maxSize, err := agent.MaxInputSize(100)
	require.NoError(t, err)
	ai, err := agent.NewAI(agent.AIConfig{Name: "helper", Description: "Helps.", Model: modeltest.New(t), Tools: []agent.Agent{sum}})
	require.NoError(t, err)
	custom, err := agent.New(agent.Info{Name: "step", Description: "A step."}, echoBody)
	require.NoError(t, err)
	guardedSum, err := agent.GuardTool(sum, agent.ToolGuards{Before: []agent.Guardrail{maxSize}})
	require.NoError(t, err)
	guardedCustom, err := agent.GuardTool(custom, agent.ToolGuards{Before: []agent.Guardrail{maxSize}})
	require.NoError(t, err)

	sumIn := `{"type":"object","properties":{"a":{"type":"integer"},"b":{"type":"integer"}},"required":["a","b"],"additionalProperties":false}`
	anyObject := `{"type":"object","additionalProperties":true}`
	tests := []struct {
		name        string
		a           agent.Agent
		agentName   string
		description string
		kind        string
		in          string // a JSON schema, or "" to check only that it is set
		checksInput bool
	}{
		{"func", sum, "sum", "Adds a and b.", "func", sumIn, true},
		{"ai", ai, "helper", "Helps.", "ai", "", false},
		{"custom", custom, "step", "A step.", "agent", anyObject, false},
		// The guards run before the tool checks its input, so a guarded
		// tool does not promise it: the server checks first.
		{"guarded func", guardedSum, "sum", "Adds a and b.", "func", sumIn, false},
		{"guarded custom", guardedCustom, "step", "A step.", "agent", anyObject, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			info := tt.a.Info()
			require.Equal(t, tt.agentName, info.Name)
			require.Equal(t, tt.description, info.Description)
			require.Equal(t, tt.kind, info.Kind)
			require.Equal(t, tt.checksInput, info.ChecksInput)
			require.NotEmpty(t, info.InputSchema)
			require.NotEmpty(t, info.OutputSchema)
			if tt.in != "" {
				require.JSONEq(t, tt.in, string(info.InputSchema))
			}
			require.True(t, json.Valid(info.OutputSchema))
		})
	}
}

// TestInfoDoesNotAllocate holds Info to its promise of being cheap: runs,
// tool routing and spans call it, through the interface, every time.
func TestInfoDoesNotAllocate(t *testing.T) {
	sum, err := agent.NewFunc("sum", "Adds a and b.", sumFn)
	require.NoError(t, err)
	maxSize, err := agent.MaxInputSize(100)
	require.NoError(t, err)
	ai, err := agent.NewAI(agent.AIConfig{Name: "helper", Model: modeltest.New(t)})
	require.NoError(t, err)
	custom, err := agent.New(agent.Info{Name: "step"}, echoBody)
	require.NoError(t, err)
	guarded, err := agent.GuardTool(sum, agent.ToolGuards{Before: []agent.Guardrail{maxSize}})
	require.NoError(t, err)
	for _, a := range []agent.Agent{sum, ai, custom, guarded} {
		var name string
		allocs := testing.AllocsPerRun(100, func() { name = a.Info().Name })
		require.Zero(t, allocs, "Info of %s allocates", name)
	}
}

// TestInfoOfSomeoneElsesAgent runs a type written outside loom that has
// only the contract's two methods, as a tool of an AI agent.
func TestInfoOfSomeoneElsesAgent(t *testing.T) {
	m := modeltest.New(t,
		modeltest.ToolCalls(modeltest.Call("call_1", "greet", `{"who":"Ada"}`)),
		modeltest.Text("done"),
	)
	ai, err := agent.NewAI(agent.AIConfig{Name: "host", Model: m, Tools: []agent.Agent{greeter{}}})
	require.NoError(t, err)
	out, err := agent.Invoke(context.Background(), ai, "greet Ada")
	require.NoError(t, err)
	require.JSONEq(t, `{"message":"done"}`, string(out))
	req := m.Requests()
	require.Len(t, req, 2)
	require.Len(t, req[0].Tools, 1)
	require.Equal(t, "greet", req[0].Tools[0].Name)
	require.Equal(t, "Greets someone.", req[0].Tools[0].Description)
	require.JSONEq(t, `{"type":"object","properties":{"who":{"type":"string"}}}`, string(req[0].Tools[0].Schema))
}

// greeter is an agent built on Info and Run alone.
type greeter struct{}

func (greeter) Info() agent.Info {
	return agent.Info{Name: "greet", Description: "Greets someone.", InputSchema: json.RawMessage(`{"type":"object","properties":{"who":{"type":"string"}}}`)}
}

func (g greeter) Run(ctx context.Context, input json.RawMessage) iter.Seq2[agent.Event, error] {
	return agentrt.Execute(ctx, g, input, func(_ context.Context, r *agent.Run) (json.RawMessage, error) {
		var in struct{ Who string }
		if err := json.Unmarshal(r.Input, &in); err != nil {
			return nil, err
		}
		return json.Marshal(map[string]string{"message": "hello " + in.Who})
	})
}
