package anthropic_test

import (
	"encoding/json"
	"net/http"
	"testing"

	"github.com/loomwork/loom/model"
	"github.com/loomwork/loom/model/anthropic"
	"github.com/loomwork/loom/model/internal/providertest"
	"github.com/loomwork/loom/model/modeltest"
	"github.com/stretchr/testify/require"
)

func answerText(w http.ResponseWriter, _ *http.Request, _ int) {
	s := startSSE(w)
	s.messageStart(model.Usage{InputTokens: 3})
	s.textBlock(0, []string{"ok"})
	s.messageDelta("end_turn", 1)
	s.messageStop()
}

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
			model.ToolCall{ID: "toolu_a", Name: "lookup", Arguments: json.RawMessage(`{"q":"cat"}`)},
			model.ToolCall{ID: "toolu_b", Name: "lookup", Arguments: json.RawMessage(`{"q":"dog"}`)},
		}},
		model.ToolMessage(
			model.ToolResult{CallID: "toolu_b", Name: "lookup", Content: json.RawMessage(`"a dog"`)},
			model.ToolResult{CallID: "toolu_a", Name: "lookup", Content: json.RawMessage(`{"kind":"cat"}`), IsError: true},
		),
		model.UserMessage("And now?"),
	}}
	body := sent(t, req)
	require.Equal(t, "claude-sonnet-5-5", body["model"])
	require.Equal(t, true, body["stream"])
	require.Equal(t, float64(anthropic.DefaultMaxTokens), body["max_tokens"], "max_tokens is required, so a default is sent")
	require.JSONEq(t, `[{"type":"text","text":"Be brief."}]`, providertest.JSONOf(t, body["system"]))
	require.JSONEq(t, `[
		{"role":"user","content":[
			{"type":"text","text":"What is in these?"},
			{"type":"image","source":{"type":"url","url":"https://example.com/cat.jpg"}},
			{"type":"image","source":{"type":"base64","media_type":"image/png","data":"iVBORw0KGgowMDAw"}}]},
		{"role":"assistant","content":[
			{"type":"text","text":"Let me look."},
			{"type":"tool_use","id":"toolu_a","name":"lookup","input":{"q":"cat"}},
			{"type":"tool_use","id":"toolu_b","name":"lookup","input":{"q":"dog"}}]},
		{"role":"user","content":[
			{"type":"tool_result","tool_use_id":"toolu_b","content":[{"type":"text","text":"a dog"}]},
			{"type":"tool_result","tool_use_id":"toolu_a","is_error":true,"content":[{"type":"text","text":"{\"kind\":\"cat\"}"}]},
			{"type":"text","text":"And now?"}]}
	]`, providertest.JSONOf(t, body["messages"]))
}

func TestRequestToolsAndChoice(t *testing.T) {
	tools := []model.Tool{
		{Name: "get_weather", Description: "Weather for a city.", Schema: json.RawMessage(`{"type":"object","properties":{"city":{"type":"string"}},"required":["city"],"additionalProperties":false}`)},
		{Name: "now"},
	}
	wantTools := `[
		{"name":"get_weather","description":"Weather for a city.","input_schema":{"type":"object","properties":{"city":{"type":"string"}},"required":["city"],"additionalProperties":false}},
		{"name":"now","input_schema":{"type":"object","properties":{}}}]`
	cases := []struct {
		name   string
		choice model.ToolChoice
		want   string // "" means absent
	}{
		{"auto", model.ToolChoice{}, ""},
		{"none", model.ToolChoice{Mode: model.ToolNone}, `{"type":"none"}`},
		{"required", model.ToolChoice{Mode: model.ToolRequired}, `{"type":"any"}`},
		{"named", model.CallTool("now"), `{"type":"tool","name":"now"}`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			body := sent(t, model.Request{Messages: []model.Message{model.UserMessage("hi")}, Tools: tools, ToolChoice: c.choice})
			require.JSONEq(t, wantTools, providertest.JSONOf(t, body["tools"]))
			if c.want == "" {
				require.NotContains(t, body, "tool_choice")
				return
			}
			require.JSONEq(t, c.want, providertest.JSONOf(t, body["tool_choice"]))
		})
	}
}

func TestRequestOptions(t *testing.T) {
	t.Run("only when set", func(t *testing.T) {
		body := sent(t, model.Request{Messages: []model.Message{model.UserMessage("hi")}})
		for _, k := range []string{"temperature", "top_p", "top_k", "stop_sequences", "output_config", "tool_choice", "tools"} {
			require.NotContains(t, body, k)
		}
	})
	t.Run("max tokens and stop sequences", func(t *testing.T) {
		body := sent(t, model.Request{Messages: []model.Message{model.UserMessage("hi")}, Options: model.Options{MaxOutputTokens: model.Ptr(256), Stop: []string{"END"}}})
		require.Equal(t, 256.0, body["max_tokens"])
		require.Equal(t, []any{"END"}, body["stop_sequences"])
	})
	t.Run("default max tokens option", func(t *testing.T) {
		body := sent(t, model.Request{Messages: []model.Message{model.UserMessage("hi")}}, model.WithMaxTokens(1024))
		require.Equal(t, 1024.0, body["max_tokens"])
	})
	t.Run("negative max tokens option", func(t *testing.T) {
		_, err := anthropic.New("m", model.WithAPIKey("k"), model.WithMaxTokens(-1))
		require.ErrorIs(t, err, model.ErrInvalidOption)
		require.ErrorContains(t, err, "WithMaxTokens(-1)")
	})
	t.Run("structured output is native", func(t *testing.T) {
		schema := `{"type":"object","properties":{"answer":{"type":"integer"}},"required":["answer"],"additionalProperties":false}`
		body := sent(t, model.Request{Messages: []model.Message{model.UserMessage("?")}, ResponseSchema: &model.ResponseSchema{Name: "answer", Schema: json.RawMessage(schema)}})
		require.JSONEq(t, `{"format":{"type":"json_schema","schema":`+schema+`}}`, providertest.JSONOf(t, body["output_config"]))
	})
}

func TestRequestUnsupportedOptions(t *testing.T) {
	cases := []struct {
		name string
		opts model.Options
	}{
		{"temperature", model.Options{Temperature: model.Ptr(0.2)}},
		{"top_p", model.Options{TopP: model.Ptr(0.9)}},
		{"presence_penalty", model.Options{PresencePenalty: model.Ptr(0.5)}},
		{"frequency_penalty", model.Options{FrequencyPenalty: model.Ptr(0.5)}},
		{"seed", model.Options{Seed: model.Ptr[int64](1)}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := newFake(t, answerText)
			_, err := model.Generate(t.Context(), f.model(t), model.Request{Messages: []model.Message{model.UserMessage("hi")}, Options: c.opts})
			require.ErrorIs(t, err, model.ErrUnsupported)
			require.ErrorContains(t, err, c.name)
			require.Equal(t, 0, f.Requests(), "nothing is sent")
		})
	}
}

func TestRequestHeaders(t *testing.T) {
	f := newFake(t, answerText)
	_, err := model.Generate(t.Context(), f.model(t, model.WithHeader("anthropic-beta", "x-2026")), model.Request{Messages: []model.Message{model.UserMessage("hi")}})
	require.NoError(t, err)
	h := f.Header(0)
	require.Equal(t, "2026-10-21", h.Get("anthropic-version"))
	require.Equal(t, "Bearer "+modeltest.TestKey, h.Get("Authorization"))
	require.Equal(t, "x-2026", h.Get("anthropic-beta"))
}

func TestRequestRejectedBeforeSending(t *testing.T) {
	cases := []struct {
		name string
		msgs []model.Message
		want error
	}{
		{"unpaired result", []model.Message{model.UserMessage("hi"), model.ToolMessage(model.ToolResult{CallID: "toolu_x", Content: json.RawMessage(`1`)})}, model.ErrInvalidRequest},
		{"image type", []model.Message{{Role: model.RoleUser, Parts: []model.Part{model.Image{Data: []byte("BM..."), MIMEType: "image/bmp"}}}}, model.ErrUnsupported},
		{"text in tool message", []model.Message{{Role: model.RoleTool, Parts: []model.Part{model.Text{Text: "x"}}}}, model.ErrInvalidRequest},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := newFake(t, answerText)
			_, err := model.Generate(t.Context(), f.model(t), model.Request{Messages: c.msgs})
			require.ErrorIs(t, err, c.want)
			require.Equal(t, 0, f.Requests())
		})
	}
}
