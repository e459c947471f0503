package gemini_test

import (
	"context"
	"net/http"
	"sync/atomic"
	"testing"

	"github.com/loomwork/loom/agent"
	"github.com/loomwork/loom/model"
	"github.com/loomwork/loom/model/internal/providertest"
	"github.com/stretchr/testify/require"
)

// TestAgentToolLoop runs a full AI-agent tool loop against the fake server:
// two parallel function calls without ids (Gemini sends calls whole), then
// the answer.
func TestAgentToolLoop(t *testing.T) {
	f := newFake(t, func(w http.ResponseWriter, _ *http.Request, i int) {
		s := startSSE(w)
		u := model.Usage{InputTokens: 10, OutputTokens: 5}
		if i == 0 {
			s.chunk(`{"functionCall":{"name":"get_weather","args":{"city":"Paris"}}},{"functionCall":{"name":"get_weather","args":{"city":"Tokyo"}}}`, "STOP", u)
			return
		}
		s.chunk(textPart("Sunny in Paris, "), "", u)
		s.chunk(textPart("rain in Tokyo."), "STOP", u)
	})
	var calls atomic.Int32
	weather, err := agent.NewFunc("get_weather", "Current weather for a city.", func(_ context.Context, in struct {
		City string `json:"city"`
	}) (string, error) {
		calls.Add(1)
		if in.City == "Tokyo" {
			return "rain", nil
		}
		return "sunny", nil
	})
	require.NoError(t, err)
	ai, err := agent.NewAI(agent.AIConfig{Name: "forecaster", Instructions: "Be brief.", Model: f.model(t), Tools: []agent.Agent{weather}})
	require.NoError(t, err)

	out, err := agent.Invoke(t.Context(), ai, "Weather in Paris and Tokyo?")
	require.NoError(t, err)
	require.JSONEq(t, `{"message":"Sunny in Paris, rain in Tokyo."}`, string(out))
	require.Equal(t, int32(2), calls.Load())
	require.Equal(t, 2, f.Requests())

	decl := f.Body(0)["tools"].([]any)[0].(map[string]any)["functionDeclarations"].([]any)[0].(map[string]any)
	require.Equal(t, "get_weather", decl["name"])
	require.Equal(t, "object", decl["parametersJsonSchema"].(map[string]any)["type"])

	// The results go back as functionResponse parts, in call order, named.
	contents := f.Body(1)["contents"].([]any)
	require.JSONEq(t, `{"role":"model","parts":[
		{"functionCall":{"name":"get_weather","args":{"city":"Paris"}}},
		{"functionCall":{"name":"get_weather","args":{"city":"Tokyo"}}}]}`, providertest.JSONOf(t, contents[1]))
	require.JSONEq(t, `{"role":"user","parts":[
		{"functionResponse":{"name":"get_weather","response":{"output":"sunny"}}},
		{"functionResponse":{"name":"get_weather","response":{"output":"rain"}}}]}`, providertest.JSONOf(t, contents[2]))
}
