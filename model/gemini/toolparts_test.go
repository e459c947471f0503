package gemini_test

import (
	"encoding/json"
	"testing"

	"github.com/loomwork/loom/model"
	"github.com/loomwork/loom/model/internal/providertest"
	"github.com/stretchr/testify/require"
)

// partsRequest is a tool call answered with JSON and more parts: a text,
// an inline PNG and audio.
func partsRequest() model.Request {
	png := []byte("\x89PNG\r\n\x1a\n0000")
	return model.Request{Messages: []model.Message{
		model.UserMessage("Chart it."),
		{Role: model.RoleAssistant, Parts: []model.Part{model.ToolCall{ID: "call_1", Name: "chart", Arguments: json.RawMessage(`{}`)}}},
		model.ToolMessage(model.ToolResult{CallID: "call_1", Name: "chart", Content: json.RawMessage(`{"points":3}`), Parts: []model.Part{
			model.Text{Text: "a rising line"},
			model.Image{Data: png, MIMEType: "image/png"},
			model.Audio{Data: []byte("RIFF0000"), MIMEType: "audio/wav"},
		}}),
	}}
}

var _ = providertest.JSONOf

func TestToolResultParts(t *testing.T) {
	body := sent(t, partsRequest())
	contents := body["contents"].([]any)
	fr := contents[2].(map[string]any)["parts"].([]any)[0].(map[string]any)["functionResponse"]
	require.JSONEq(t, `{"id":"call_1","name":"chart","response":{"points":3,"parts":"a rising line"},"parts":[
		{"inlineData":{"mimeType":"image/png","data":"iVBORw0KGgowMDAw"}},
		{"inlineData":{"mimeType":"audio/wav","data":"UklGRjAwMDA="}}]}`, providertest.JSONOf(t, fr))
}
