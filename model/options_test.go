package model_test

import (
	"encoding/json"
	"math"
	"testing"

	"github.com/loomwork/loom/model"
	"github.com/stretchr/testify/require"
)

func TestOptionsValidate(t *testing.T) {
	tests := []struct {
		name string
		opts model.Options
		want string
	}{
		{"unset is fine", model.Options{}, ""},
		{"all in range", model.Options{Temperature: model.Ptr(2.0), TopP: model.Ptr(0.0), PresencePenalty: model.Ptr(-2.0), FrequencyPenalty: model.Ptr(2.0), MaxOutputTokens: model.Ptr(1), Seed: model.Ptr(int64(-5)), Stop: []string{"\n"}}, ""},
		{"temperature high", model.Options{Temperature: model.Ptr(5.0)}, "invalid option temperature=5: must be in [0, 2]"},
		{"temperature NaN", model.Options{Temperature: model.Ptr(math.NaN())}, "invalid option temperature=NaN: must be in [0, 2]"},
		{"top_p", model.Options{TopP: model.Ptr(1.5)}, "invalid option top_p=1.5: must be in [0, 1]"},
		{"presence", model.Options{PresencePenalty: model.Ptr(-3.0)}, "invalid option presence_penalty=-3: must be in [-2, 2]"},
		{"frequency", model.Options{FrequencyPenalty: model.Ptr(2.5)}, "invalid option frequency_penalty=2.5: must be in [-2, 2]"},
		{"max tokens", model.Options{MaxOutputTokens: model.Ptr(0)}, "invalid option max_output_tokens=0: must be in [1, ∞)"},
		{"empty stop", model.Options{Stop: []string{""}}, `invalid option stop="": must be in non-empty strings`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.opts.Validate()
			if tt.want == "" {
				require.NoError(t, err)
				return
			}
			require.EqualError(t, err, tt.want)
			require.ErrorIs(t, err, model.ErrInvalidOption)
		})
	}
}

func TestOptionsMerge(t *testing.T) {
	base := model.Options{Temperature: model.Ptr(0.2), TopP: model.Ptr(0.9)}
	got := base.Merge(model.Options{Temperature: model.Ptr(0.7), Seed: model.Ptr(int64(1))})
	require.Equal(t, 0.7, *got.Temperature)
	require.Equal(t, 0.9, *got.TopP)
	require.Equal(t, int64(1), *got.Seed)
	require.Nil(t, got.MaxOutputTokens)
	require.Equal(t, 0.2, *base.Temperature, "merge does not change its receiver")
}

func TestMessageJSONRoundTrip(t *testing.T) {
	msgs := []model.Message{
		model.SystemMessage("sys"),
		{Role: model.RoleUser, Parts: []model.Part{model.Text{Text: "look"}, model.Image{URL: "https://x/y.png"}, model.Image{Data: []byte{1, 2}, MIMEType: "image/png"}}},
		{Role: model.RoleAssistant, Parts: []model.Part{model.ToolCall{ID: "c1", Name: "f", Arguments: json.RawMessage(`{"a":1}`)}}},
		model.ToolMessage(model.ToolResult{CallID: "c1", Name: "f", Content: json.RawMessage(`{"error":"x"}`), IsError: true}),
	}
	b, err := json.Marshal(msgs)
	require.NoError(t, err)
	var back []model.Message
	require.NoError(t, json.Unmarshal(b, &back))
	require.Equal(t, msgs, back)

	var bad model.Message
	require.ErrorContains(t, json.Unmarshal([]byte(`{"role":"user","parts":[{"type":"video"}]}`), &bad), `unknown type "video"`)
}

func TestRequestValidate(t *testing.T) {
	tool := model.Tool{Name: "f", Schema: json.RawMessage(`{"type":"object"}`)}
	tests := []struct {
		name string
		req  model.Request
		want string
	}{
		{"ok", model.Request{Messages: []model.Message{model.UserMessage("x")}, Tools: []model.Tool{tool}, ToolChoice: model.CallTool("f")}, ""},
		{"no messages", model.Request{}, "no messages"},
		{"bad tool name", model.Request{Messages: []model.Message{model.UserMessage("x")}, Tools: []model.Tool{{Name: "a b"}}}, `tool name "a b" is not valid`},
		{"duplicate tool", model.Request{Messages: []model.Message{model.UserMessage("x")}, Tools: []model.Tool{tool, tool}}, `tool "f" appears twice`},
		{"named missing", model.Request{Messages: []model.Message{model.UserMessage("x")}, Tools: []model.Tool{tool}, ToolChoice: model.CallTool("g")}, `names "g"`},
		{"required without tools", model.Request{Messages: []model.Message{model.UserMessage("x")}, ToolChoice: model.ToolChoice{Mode: model.ToolRequired}}, "needs at least one tool"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.req.Validate()
			if tt.want == "" {
				require.NoError(t, err)
				return
			}
			require.ErrorIs(t, err, model.ErrInvalidRequest)
			require.ErrorContains(t, err, tt.want)
		})
	}
}
