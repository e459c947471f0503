package openai_test

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
	msgs := body["messages"].([]any)
	tool := msgs[2].(map[string]any)
	require.Equal(t, "tool", tool["role"])
	require.Equal(t, "{\"points\":3}\na rising line\n[image: image/png, 12 bytes, not shown: this provider takes no images in tool results]\n[audio: audio/wav, 8 bytes, not played: this provider takes no audio in tool results]", tool["content"])
}
