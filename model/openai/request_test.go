package openai_test

import (
	"encoding/json"
	"net/http"
	"testing"

	"github.com/loomwork/loom/model"
	"github.com/loomwork/loom/model/internal/providertest"
	"github.com/loomwork/loom/model/modeltest"
	"github.com/loomwork/loom/model/openai"
	"github.com/stretchr/testify/require"
)

// answerText is a server that answers every request with "ok".
func answerText(w http.ResponseWriter, _ *http.Request, _ int) {
	s := startSSE(w)
	s.role()
	s.text("ok")
	s.finish("stop")
	s.usage(model.Usage{InputTokens: 1, OutputTokens: 1})
	s.done()
}

// sent sends req through a fresh model and returns the JSON body the server
// received.
func sent(t *testing.T, req model.Request, opts ...model.ClientOption) map[string]any {
	t.Helper()
	f := newFake(t, answerText)
	_, err := model.Generate(t.Context(), f.model(t, opts...), req)
	require.NoError(t, err)
	return f.Body(0)
}

func TestRequestMessages(t *testing.T) {
	png := []byte("\x89PNG\r\n\x1a\n0000")
	req := model.Request{Messages: []model.Message{
		model.SystemMessage("Be brief."),
		{Role: model.RoleUser, Parts: []model.Part{
			model.Text{Text: "What is in these?"},
			model.Image{URL: "https://example.com/cat.jpg"},
			model.Image{Data: png},
		}},
		{Role: model.RoleAssistant, Parts: []model.Part{
			model.Text{Text: "Let me look."},
			model.ToolCall{ID: "call_a", Name: "lookup", Arguments: json.RawMessage(`{"q":"cat"}`)},
			model.ToolCall{ID: "call_b", Name: "lookup", Arguments: json.RawMessage(`{"q":"dog"}`)},
		}},
		model.ToolMessage(
			model.ToolResult{CallID: "call_b", Name: "lookup", Content: json.RawMessage(`"a dog"`)},
			model.ToolResult{CallID: "call_a", Name: "lookup", Content: json.RawMessage(`{"kind":"cat"}`), IsError: true},
		),
	}}
	body := sent(t, req)
	require.Equal(t, "gpt-5.4-mini", body["model"])
	require.Equal(t, true, body["stream"])
	require.Equal(t, map[string]any{"include_usage": true}, body["stream_options"])
	require.JSONEq(t, `[
		{"role":"system","content":"Be brief."},
		{"role":"user","content":[
			{"type":"text","text":"What is in these?"},
			{"type":"image_url","image_url":{"url":"https://example.com/cat.jpg"}},
			{"type":"image_url","image_url":{"url":"data:image/png;base64,iVBORw0KGgowMDAw"}}]},
		{"role":"assistant","content":"Let me look.","tool_calls":[
			{"id":"call_a","type":"function","function":{"name":"lookup","arguments":"{\"q\":\"cat\"}"}},
			{"id":"call_b","type":"function","function":{"name":"lookup","arguments":"{\"q\":\"dog\"}"}}]},
		{"role":"tool","tool_call_id":"call_b","content":"a dog"},
		{"role":"tool","tool_call_id":"call_a","content":"{\"error\":{\"kind\":\"cat\"}}"}
	]`, providertest.JSONOf(t, body["messages"]))
}

func TestRequestToolsAndChoice(t *testing.T) {
	tools := []model.Tool{
		{Name: "get_weather", Description: "Weather for a city.", Schema: json.RawMessage(`{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}`)},
		{Name: "now"},
	}
	wantTools := `[
		{"type":"function","function":{"name":"get_weather","description":"Weather for a city.","parameters":{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}}},
		{"type":"function","function":{"name":"now","parameters":{"type":"object","properties":{}}}}]`
	cases := []struct {
		name   string
		choice model.ToolChoice
		want   any // nil: tool_choice absent
	}{
		{"auto", model.ToolChoice{}, nil},
		{"none", model.ToolChoice{Mode: model.ToolNone}, "none"},
		{"required", model.ToolChoice{Mode: model.ToolRequired}, "required"},
		{"named", model.CallTool("now"), map[string]any{"type": "function", "function": map[string]any{"name": "now"}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			body := sent(t, model.Request{Messages: []model.Message{model.UserMessage("hi")}, Tools: tools, ToolChoice: c.choice})
			require.JSONEq(t, wantTools, providertest.JSONOf(t, body["tools"]))
			got, ok := body["tool_choice"]
			if c.want == nil {
				require.False(t, ok, "tool_choice must be absent for auto, got %v", got)
				return
			}
			require.Equal(t, c.want, got)
		})
	}
	t.Run("no tools, no tool_choice", func(t *testing.T) {
		body := sent(t, model.Request{Messages: []model.Message{model.UserMessage("hi")}, ToolChoice: model.ToolChoice{Mode: model.ToolNone}})
		require.NotContains(t, body, "tools")
		require.NotContains(t, body, "tool_choice")
	})
}

func TestRequestOptionsOnlyWhenSet(t *testing.T) {
	optionKeys := []string{"temperature", "top_p", "presence_penalty", "frequency_penalty", "max_completion_tokens", "max_tokens", "stop", "seed", "response_format"}
	cases := []struct {
		name   string
		preset openai.Preset
		opts   model.Options
		want   map[string]any
		client []model.ClientOption
	}{
		{"none set", openai.OpenAIPreset(), model.Options{}, map[string]any{}, nil},
		{"temperature zero is sent", openai.OpenAIPreset(), model.Options{Temperature: model.Ptr(0.0)}, map[string]any{"temperature": 0.0}, nil},
		{"all set", openai.OpenAIPreset(), model.Options{
			Temperature: model.Ptr(0.5), TopP: model.Ptr(0.9), PresencePenalty: model.Ptr(0.1), FrequencyPenalty: model.Ptr(-0.2),
			MaxOutputTokens: model.Ptr(100), Stop: []string{"END", "STOP"}, Seed: model.Ptr[int64](7),
		}, map[string]any{"temperature": 0.5, "top_p": 0.9, "presence_penalty": 0.1, "frequency_penalty": -0.2, "max_completion_tokens": 100.0, "stop": []any{"END", "STOP"}, "seed": 7.0}, nil},
		{"compatible servers get max_tokens", openai.OllamaPreset(), model.Options{MaxOutputTokens: model.Ptr(64)}, map[string]any{"max_tokens": 64.0}, nil},
		{"the client's max tokens when the request sets none", openai.OpenAIPreset(), model.Options{}, map[string]any{"max_completion_tokens": 300.0}, []model.ClientOption{model.WithMaxTokens(300)}},
		{"the request's max tokens over the client's", openai.OpenAIPreset(), model.Options{MaxOutputTokens: model.Ptr(64)}, map[string]any{"max_completion_tokens": 64.0}, []model.ClientOption{model.WithMaxTokens(300)}},
		{"the client's max tokens as max_tokens", openai.OllamaPreset(), model.Options{}, map[string]any{"max_tokens": 300.0}, []model.ClientOption{model.WithMaxTokens(300)}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := newFake(t, answerText)
			m, err := openai.NewFor(c.preset, "m", append([]model.ClientOption{model.WithBaseURL(f.URL() + "/v1"), model.WithAPIKey(modeltest.TestKey)}, c.client...)...)
			require.NoError(t, err)
			_, err = model.Generate(t.Context(), m, model.Request{Messages: []model.Message{model.UserMessage("hi")}, Options: c.opts})
			require.NoError(t, err)
			got := map[string]any{}
			for _, k := range optionKeys {
				if v, ok := f.Body(0)[k]; ok {
					got[k] = v
				}
			}
			require.Equal(t, c.want, got)
		})
	}
}

func TestRequestStructuredOutput(t *testing.T) {
	schema := json.RawMessage(`{"type":"object","properties":{"answer":{"type":"integer"}},"required":["answer"],"additionalProperties":false}`)
	t.Run("json_schema strict", func(t *testing.T) {
		body := sent(t, model.Request{Messages: []model.Message{model.UserMessage("?")}, ResponseSchema: &model.ResponseSchema{Name: "the answer", Description: "The answer.", Schema: schema}})
		require.JSONEq(t, `{"type":"json_schema","json_schema":{"name":"the_answer","description":"The answer.","strict":true,"schema":`+string(schema)+`}}`, providertest.JSONOf(t, body["response_format"]))
	})
	t.Run("deepseek gets json_object and the schema in words", func(t *testing.T) {
		f := newFake(t, answerText)
		m, err := openai.NewFor(openai.DeepSeekPreset(), "", model.WithBaseURL(f.URL()+"/v1"), model.WithAPIKey(modeltest.TestKey))
		require.NoError(t, err)
		require.Equal(t, "deepseek-chat", m.Name())
		_, err = model.Generate(t.Context(), m, model.Request{Messages: []model.Message{model.UserMessage("?")}, ResponseSchema: &model.ResponseSchema{Name: "answer", Schema: schema}})
		require.NoError(t, err)
		body := f.Body(0)
		require.JSONEq(t, `{"type":"json_object"}`, providertest.JSONOf(t, body["response_format"]))
		first := body["messages"].([]any)[0].(map[string]any)
		require.Equal(t, "system", first["role"])
		require.Contains(t, first["content"], "JSON")
		require.Contains(t, first["content"], string(schema))
	})
}

func TestRequestRejectedBeforeSending(t *testing.T) {
	cases := []struct {
		name string
		msgs []model.Message
		want string
	}{
		{"result without call", []model.Message{model.UserMessage("hi"), model.ToolMessage(model.ToolResult{CallID: "call_x", Content: json.RawMessage(`1`)})}, `no earlier assistant message made a tool call with that id`},
		{"result without id", []model.Message{model.UserMessage("hi"), model.ToolMessage(model.ToolResult{Name: "f", Content: json.RawMessage(`1`)})}, `has no call id`},
		{"image in assistant message", []model.Message{{Role: model.RoleAssistant, Parts: []model.Part{model.Image{URL: "https://x/y.png"}}}}, `assistant message holds text and tool calls`},
		{"empty image", []model.Message{{Role: model.RoleUser, Parts: []model.Part{model.Image{}}}}, `neither URL nor data`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := newFake(t, answerText)
			_, err := model.Generate(t.Context(), f.model(t), model.Request{Messages: c.msgs})
			require.ErrorIs(t, err, model.ErrInvalidRequest)
			require.ErrorContains(t, err, c.want)
			require.Equal(t, 0, f.Requests(), "an invalid request is not sent")
		})
	}
}

func TestRequestHeaders(t *testing.T) {
	f := newFake(t, answerText)
	_, err := model.Generate(t.Context(), f.model(t, model.WithHeader("X-Title", "loom")), model.Request{Messages: []model.Message{model.UserMessage("hi")}})
	require.NoError(t, err)
	h := f.Header(0)
	require.Equal(t, "Bearer "+modeltest.TestKey, h.Get("Authorization"))
	require.Equal(t, "loom", h.Get("X-Title"))
}
