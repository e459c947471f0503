package gemini

import (
	"encoding/json"
	"testing"

	"github.com/loomwork/loom/model"
)

// benchRequest is a typical agent turn: system prompt, a question, a tool
// call and its result, two tools.
func benchRequest() model.Request {
	return model.Request{
		Messages: []model.Message{
			model.SystemMessage("You are a careful assistant."),
			model.UserMessage("Weather in Paris?"),
			{Role: model.RoleAssistant, Parts: []model.Part{model.ToolCall{ID: "call_1", Name: "get_weather", Arguments: json.RawMessage(`{"city":"Paris"}`)}}},
			model.ToolMessage(model.ToolResult{CallID: "call_1", Name: "get_weather", Content: json.RawMessage(`{"sky":"clear","c":21}`)}),
		},
		Tools: []model.Tool{
			{Name: "get_weather", Description: "Weather for a city.", Schema: json.RawMessage(`{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}`)},
			{Name: "get_time", Description: "Time in a zone.", Schema: json.RawMessage(`{"type":"object","properties":{"zone":{"type":"string"}},"required":["zone"]}`)},
		},
		Options: model.Options{Temperature: model.Ptr(0.2), MaxOutputTokens: model.Ptr(512)},
	}
}

// BenchmarkRequestMapping is loom's whole cost before the SDK sends a
// request: validation and mapping onto the SDK's parameters. It is the
// latency loom adds to the first chunk.
func BenchmarkRequestMapping(b *testing.B) {
	m, err := New("gemini-flash-latest", WithAPIKey("k"), WithBaseURL("http://localhost/"))
	if err != nil {
		b.Fatal(err)
	}
	req := benchRequest()
	b.ReportAllocs()
	for b.Loop() {
		if err := req.Validate(); err != nil {
			b.Fatal(err)
		}
		if _, _, err := m.config(req); err != nil {
			b.Fatal(err)
		}
	}
}
