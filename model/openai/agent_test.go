package openai_test

import (
	"context"
	"encoding/json"
	"net/http"
	"sync/atomic"
	"testing"

	"github.com/loomwork/loom/agent"
	"github.com/loomwork/loom/model"
	"github.com/stretchr/testify/require"
)

// TestAgentToolLoop runs a full AI-agent tool loop against the fake server:
// the model first sends arguments that are not JSON (the agent must answer
// with an error result, not crash), then a good call, then the answer.
func TestAgentToolLoop(t *testing.T) {
	f := newFake(t, func(w http.ResponseWriter, _ *http.Request, i int) {
		s := startSSE(w)
		s.role()
		switch i {
		case 0:
			s.toolCall(0, model.ToolCall{ID: "call_bad", Name: "get_weather", Arguments: json.RawMessage(`{"city":`)}, 4)
			s.finish("tool_calls")
		case 1:
			s.toolCall(0, model.ToolCall{ID: "call_ok", Name: "get_weather", Arguments: json.RawMessage(`{"city":"Paris"}`)}, 4)
			s.finish("tool_calls")
		default:
			s.text("Sunny in ")
			s.text("Paris.")
			s.finish("stop")
		}
		s.usage(model.Usage{InputTokens: 10, OutputTokens: 5})
		s.done()
	})
	var calls atomic.Int32
	weather, err := agent.NewFunc("get_weather", "Current weather for a city.", func(_ context.Context, in struct {
		City string `json:"city"`
	}) (string, error) {
		calls.Add(1)
		return "sunny in " + in.City, nil
	})
	require.NoError(t, err)
	ai, err := agent.NewAI(agent.AIConfig{Name: "forecaster", Instructions: "Be brief.", Model: f.model(t), Tools: []agent.Agent{weather}})
	require.NoError(t, err)

	out, err := agent.Invoke(t.Context(), ai, "Weather in Paris?")
	require.NoError(t, err)
	require.JSONEq(t, `{"message":"Sunny in Paris."}`, string(out))
	require.Equal(t, int32(1), calls.Load(), "the broken call never reaches the tool")
	require.Equal(t, 3, f.Requests())

	// What the agent sent back: the tool schema, then each result paired
	// with its call id.
	tools := f.Body(0)["tools"].([]any)
	fn := tools[0].(map[string]any)["function"].(map[string]any)
	require.Equal(t, "get_weather", fn["name"])
	require.Equal(t, "object", fn["parameters"].(map[string]any)["type"])

	second := f.Body(1)["messages"].([]any)
	last := second[len(second)-1].(map[string]any)
	require.Equal(t, "tool", last["role"])
	require.Equal(t, "call_bad", last["tool_call_id"])
	require.Contains(t, last["content"], "error", "invalid arguments come back as an error result")

	third := f.Body(2)["messages"].([]any)
	last = third[len(third)-1].(map[string]any)
	require.Equal(t, "call_ok", last["tool_call_id"])
	require.Contains(t, last["content"], "sunny in Paris")
}
