package gemini_test

import (
	"encoding/json"
	"net/http"
	"testing"

	"github.com/loomwork/loom/model"
	"github.com/loomwork/loom/model/internal/providertest"
	"github.com/loomwork/loom/model/modeltest"
	"github.com/stretchr/testify/require"
)

func answerText(w http.ResponseWriter, _ *http.Request, _ int) {
	startSSE(w).chunk(textPart("ok"), "STOP", model.Usage{InputTokens: 3, OutputTokens: 1})
}

func sent(t *testing.T, req model.Request, opts ...model.ClientOption) map[string]any {
	t.Helper()
	f := newFake(t, answerText)
	_, err := model.Generate(t.Context(), f.model(t, opts...), req)
	require.NoError(t, err)
	return f.Body(0)
}

func TestRequestContents(t *testing.T) {
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
			model.ToolCall{ID: "fc_a", Name: "lookup", Arguments: json.RawMessage(`{"q":"cat"}`)},
			model.ToolCall{ID: "gemini-call-resp1-1", Name: "lookup", Arguments: json.RawMessage(`{"q":"dog"}`)},
		}},
		model.ToolMessage(
			model.ToolResult{CallID: "gemini-call-resp1-1", Content: json.RawMessage(`"a dog"`)},
			model.ToolResult{CallID: "fc_a", Name: "lookup", Content: json.RawMessage(`{"kind":"cat"}`), IsError: true},
		),
		model.UserMessage("And now?"),
	}}
	body := sent(t, req)
	require.JSONEq(t, `{"parts":[{"text":"Be brief."}],"role":"user"}`, providertest.JSONOf(t, body["systemInstruction"]))
	require.JSONEq(t, `[
		{"role":"user","parts":[
			{"text":"What is in these?"},
			{"fileData":{"fileUri":"https://example.com/cat.jpg","mimeType":"image/jpeg"}},
			{"inlineData":{"data":"iVBORw0KGgowMDAw","mimeType":"image/png"}}]},
		{"role":"model","parts":[
			{"text":"Let me look."},
			{"functionCall":{"id":"fc_a","name":"lookup","args":{"q":"cat"}}},
			{"functionCall":{"name":"lookup","args":{"q":"dog"}}}]},
		{"role":"user","parts":[
			{"functionResponse":{"name":"lookup","response":{"output":"a dog"}}},
			{"functionResponse":{"id":"fc_a","name":"lookup","response":{"error":{"kind":"cat"}}}},
			{"text":"And now?"}]}
	]`, providertest.JSONOf(t, body["contents"]))
}

func TestRequestToolsAndChoice(t *testing.T) {
	schema := `{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}`
	tools := []model.Tool{{Name: "get_weather", Description: "Weather for a city.", Schema: json.RawMessage(schema)}, {Name: "now"}}
	wantTools := `[{"functionDeclarations":[
		{"name":"get_weather","description":"Weather for a city.","parametersJsonSchema":` + schema + `},
		{"name":"now"}]}]`
	cases := []struct {
		name   string
		choice model.ToolChoice
		want   string
	}{
		{"auto", model.ToolChoice{}, ""},
		{"none", model.ToolChoice{Mode: model.ToolNone}, `{"functionCallingConfig":{"mode":"NONE"}}`},
		{"required", model.ToolChoice{Mode: model.ToolRequired}, `{"functionCallingConfig":{"mode":"ANY"}}`},
		{"named", model.CallTool("now"), `{"functionCallingConfig":{"mode":"ANY","allowedFunctionNames":["now"]}}`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			body := sent(t, model.Request{Messages: []model.Message{model.UserMessage("hi")}, Tools: tools, ToolChoice: c.choice})
			require.JSONEq(t, wantTools, providertest.JSONOf(t, body["tools"]))
			if c.want == "" {
				require.NotContains(t, body, "toolConfig")
				return
			}
			require.JSONEq(t, c.want, providertest.JSONOf(t, body["toolConfig"]))
		})
	}
}

func TestRequestOptions(t *testing.T) {
	t.Run("none set", func(t *testing.T) {
		body := sent(t, model.Request{Messages: []model.Message{model.UserMessage("hi")}})
		require.Empty(t, body["generationConfig"], "no option is sent (the SDK always sends the object)")
		require.NotContains(t, body, "tools")
	})
	t.Run("all set", func(t *testing.T) {
		body := sent(t, model.Request{Messages: []model.Message{model.UserMessage("hi")}, Options: model.Options{
			Temperature: model.Ptr(0.5), TopP: model.Ptr(0.25), PresencePenalty: model.Ptr(0.5), FrequencyPenalty: model.Ptr(-0.5),
			MaxOutputTokens: model.Ptr(100), Stop: []string{"END"}, Seed: model.Ptr[int64](7),
		}})
		require.JSONEq(t, `{"temperature":0.5,"topP":0.25,"presencePenalty":0.5,"frequencyPenalty":-0.5,"maxOutputTokens":100,"stopSequences":["END"],"seed":7}`, providertest.JSONOf(t, body["generationConfig"]))
	})
	t.Run("the client's max tokens when the request sets none", func(t *testing.T) {
		body := sent(t, model.Request{Messages: []model.Message{model.UserMessage("hi")}}, model.WithMaxTokens(300))
		require.JSONEq(t, `{"maxOutputTokens":300}`, providertest.JSONOf(t, body["generationConfig"]))
	})
	t.Run("the request's max tokens over the client's", func(t *testing.T) {
		body := sent(t, model.Request{Messages: []model.Message{model.UserMessage("hi")}, Options: model.Options{MaxOutputTokens: model.Ptr(64)}}, model.WithMaxTokens(300))
		require.JSONEq(t, `{"maxOutputTokens":64}`, providertest.JSONOf(t, body["generationConfig"]))
	})
	t.Run("temperature zero is sent", func(t *testing.T) {
		body := sent(t, model.Request{Messages: []model.Message{model.UserMessage("hi")}, Options: model.Options{Temperature: model.Ptr(0.0)}})
		require.JSONEq(t, `{"temperature":0}`, providertest.JSONOf(t, body["generationConfig"]))
	})
	t.Run("response schema", func(t *testing.T) {
		schema := `{"type":"object","properties":{"answer":{"type":"integer"}},"required":["answer"]}`
		body := sent(t, model.Request{Messages: []model.Message{model.UserMessage("?")}, ResponseSchema: &model.ResponseSchema{Name: "answer", Schema: json.RawMessage(schema)}})
		require.JSONEq(t, `{"responseMimeType":"application/json","responseJsonSchema":`+schema+`}`, providertest.JSONOf(t, body["generationConfig"]))
	})
	t.Run("seed out of range", func(t *testing.T) {
		f := newFake(t, answerText)
		_, err := model.Generate(t.Context(), f.model(t), model.Request{Messages: []model.Message{model.UserMessage("hi")}, Options: model.Options{Seed: model.Ptr[int64](1 << 40)}})
		require.ErrorIs(t, err, model.ErrInvalidOption)
		require.Equal(t, 0, f.Requests())
	})
}

func TestRequestHeaders(t *testing.T) {
	f := newFake(t, answerText)
	_, err := model.Generate(t.Context(), f.model(t, model.WithHeader("X-Team", "loom")), model.Request{Messages: []model.Message{model.UserMessage("hi")}})
	require.NoError(t, err)
	r := f.Request(0)
	require.Equal(t, modeltest.TestKey, r.Header.Get("x-goog-api-key"))
	require.Equal(t, "loom", r.Header.Get("X-Team"))
}

func TestThoughtSignaturesReplayed(t *testing.T) {
	// Gemini 3 requires a function call's thought signature back when the
	// conversation is replayed.
	f := newFake(t, func(w http.ResponseWriter, _ *http.Request, i int) {
		s := startSSE(w)
		if i == 0 {
			s.chunk(`{"functionCall":{"name":"now","args":{}},"thoughtSignature":"c2lnLTE="}`, "STOP", model.Usage{InputTokens: 3, OutputTokens: 1})
			return
		}
		s.chunk(textPart("noon"), "STOP", model.Usage{InputTokens: 3, OutputTokens: 1})
	})
	m := f.model(t)
	req := model.Request{Messages: []model.Message{model.UserMessage("time?")}, Tools: []model.Tool{{Name: "now"}}}
	resp, err := model.Generate(t.Context(), m, req)
	require.NoError(t, err)
	calls := resp.Message.ToolCalls()
	require.Len(t, calls, 1)
	require.Equal(t, "gemini-call-resp-7Yx2-0", calls[0].ID, "a call without an id gets a stable one")

	req.Messages = append(req.Messages, resp.Message, model.ToolMessage(model.ToolResult{CallID: calls[0].ID, Name: "now", Content: json.RawMessage(`"12:00"`)}))
	resp, err = model.Generate(t.Context(), m, req)
	require.NoError(t, err)
	require.Equal(t, "noon", resp.Message.Text())
	require.JSONEq(t, `[
		{"role":"user","parts":[{"text":"time?"}]},
		{"role":"model","parts":[{"functionCall":{"name":"now"},"thoughtSignature":"c2lnLTE="}]},
		{"role":"user","parts":[{"functionResponse":{"name":"now","response":{"output":"12:00"}}}]}
	]`, providertest.JSONOf(t, f.Body(1)["contents"]))
}
