package anthropic_test

import (
	"context"
	"encoding/json"
	"net/http"
	"sync/atomic"
	"testing"

	"github.com/loomwork/loom/agent"
	"github.com/loomwork/loom/model"
	"github.com/loomwork/loom/model/internal/providertest"
	"github.com/stretchr/testify/require"
)

// TestAgentToolLoop runs a full AI-agent tool loop against the fake server:
// input JSON that does not parse (the agent answers with an error result),
// a good call, then the answer.
func TestAgentToolLoop(t *testing.T) {
	f := newFake(t, func(w http.ResponseWriter, _ *http.Request, i int) {
		s := startSSE(w)
		s.messageStart(model.Usage{InputTokens: 10})
		switch i {
		case 0:
			s.toolBlock(0, model.ToolCall{ID: "toolu_bad", Name: "get_weather", Arguments: json.RawMessage(`{"city":`)}, 4)
			s.messageDelta("tool_use", 5)
		case 1:
			s.textBlock(0, []string{"Retrying."})
			s.toolBlock(1, model.ToolCall{ID: "toolu_ok", Name: "get_weather", Arguments: json.RawMessage(`{"city":"Paris"}`)}, 4)
			s.messageDelta("tool_use", 5)
		default:
			s.textBlock(0, []string{"Sunny in ", "Paris."})
			s.messageDelta("end_turn", 5)
		}
		s.messageStop()
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
	require.Equal(t, int32(1), calls.Load())
	require.Equal(t, 3, f.Requests())

	require.JSONEq(t, `[{"type":"text","text":"Be brief."}]`, providertest.JSONOf(t, f.Body(0)["system"]))
	tool := f.Body(0)["tools"].([]any)[0].(map[string]any)
	require.Equal(t, "get_weather", tool["name"])
	require.Equal(t, "object", tool["input_schema"].(map[string]any)["type"])

	// The broken call is replayed with an input the API accepts, and its
	// result is an error paired by id.
	msgs := f.Body(1)["messages"].([]any)
	assistant := msgs[len(msgs)-2].(map[string]any)["content"].([]any)
	require.JSONEq(t, `{"type":"tool_use","id":"toolu_bad","name":"get_weather","input":{}}`, providertest.JSONOf(t, assistant[0]))
	result := msgs[len(msgs)-1].(map[string]any)["content"].([]any)[0].(map[string]any)
	require.Equal(t, "toolu_bad", result["tool_use_id"])
	require.Equal(t, true, result["is_error"])

	msgs = f.Body(2)["messages"].([]any)
	result = msgs[len(msgs)-1].(map[string]any)["content"].([]any)[0].(map[string]any)
	require.Equal(t, "toolu_ok", result["tool_use_id"])
	require.NotContains(t, result, "is_error")
	require.Contains(t, providertest.JSONOf(t, result["content"]), "sunny in Paris")
}
