package anthropic_test

import (
	"encoding/json"
	"errors"
	"net/http"
	"testing"
	"time"

	"github.com/loomwork/loom/model"
	"github.com/stretchr/testify/require"
)

func hi() model.Request {
	return model.Request{Messages: []model.Message{model.UserMessage("hi")}}
}

func TestStreamTextAndTools(t *testing.T) {
	f := newFake(t, func(w http.ResponseWriter, _ *http.Request, _ int) {
		s := startSSE(w)
		s.event("message_start", `{"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","model":"claude-sonnet-5-5","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":40,"cache_creation_input_tokens":8,"cache_read_input_tokens":100,"output_tokens":1}}}`)
		s.textBlock(0, []string{"Checking ", "both."})
		s.ping()
		s.toolBlock(1, model.ToolCall{ID: "toolu_p", Name: "get_weather", Arguments: json.RawMessage(`{"city":"Paris"}`)}, 1)
		s.toolBlock(2, model.ToolCall{ID: "toolu_t", Name: "get_time", Arguments: json.RawMessage(`{"zone":"Asia/Tokyo"}`)}, 2)
		s.messageDelta("tool_use", 61)
		s.messageStop()
	})
	var deltas int
	var a model.Assembler
	for c, err := range f.model(t).Stream(t.Context(), hi()) {
		require.NoError(t, err)
		if c.ToolCall != nil {
			deltas++
		}
		a.Add(c)
	}
	resp := a.Response()
	require.Greater(t, deltas, 20)
	require.Equal(t, "Checking both.", resp.Message.Text())
	require.Equal(t, []model.ToolCall{
		{ID: "toolu_p", Name: "get_weather", Arguments: json.RawMessage(`{"city":"Paris"}`)},
		{ID: "toolu_t", Name: "get_time", Arguments: json.RawMessage(`{"zone":"Asia/Tokyo"}`)},
	}, resp.Message.ToolCalls())
	require.Equal(t, model.FinishToolCalls, resp.FinishReason)
	// 40 uncached + 100 read from cache + 8 written to it.
	require.Equal(t, model.Usage{InputTokens: 148, OutputTokens: 61, CachedInputTokens: 100}, resp.Usage)
}

func TestStreamWholeInputAtStart(t *testing.T) {
	// Some gateways send a tool's input whole in content_block_start.
	f := newFake(t, func(w http.ResponseWriter, _ *http.Request, _ int) {
		s := startSSE(w)
		s.messageStart(model.Usage{InputTokens: 5})
		s.event("content_block_start", `{"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"toolu_1","name":"f","input":{"x":1}}}`)
		s.blockStop(0)
		s.messageDelta("tool_use", 3)
		s.messageStop()
	})
	resp, err := model.Generate(t.Context(), f.model(t), hi())
	require.NoError(t, err)
	require.Equal(t, []model.ToolCall{{ID: "toolu_1", Name: "f", Arguments: json.RawMessage(`{"x":1}`)}}, resp.Message.ToolCalls())
}

func TestStreamFinishReasons(t *testing.T) {
	cases := map[string]model.FinishReason{
		"end_turn":                      model.FinishStop,
		"stop_sequence":                 model.FinishStop,
		"max_tokens":                    model.FinishLength,
		"model_context_window_exceeded": model.FinishLength,
		"tool_use":                      model.FinishToolCalls,
		"refusal":                       model.FinishContentFilter,
		"pause_turn":                    model.FinishOther,
	}
	for reason, want := range cases {
		t.Run(reason, func(t *testing.T) {
			f := newFake(t, func(w http.ResponseWriter, _ *http.Request, _ int) {
				s := startSSE(w)
				s.messageStart(model.Usage{InputTokens: 5})
				s.textBlock(0, []string{"x"})
				s.messageDelta(reason, 1)
				s.messageStop()
			})
			resp, err := model.Generate(t.Context(), f.model(t), hi())
			require.NoError(t, err)
			require.Equal(t, want, resp.FinishReason)
		})
	}
}

func TestStreamErrorEvent(t *testing.T) {
	f := newFake(t, func(w http.ResponseWriter, _ *http.Request, _ int) {
		s := startSSE(w)
		s.messageStart(model.Usage{InputTokens: 5})
		s.textBlock(0, []string{"partial"})
		s.event("error", `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`)
	})
	_, err := model.Generate(t.Context(), f.model(t), hi())
	require.ErrorIs(t, err, model.ErrServer)
	var apiErr *model.APIError
	require.True(t, errors.As(err, &apiErr))
	require.Equal(t, 529, apiErr.StatusCode)
	require.ErrorContains(t, err, "Overloaded")
}

func TestStreamEndsWithoutMessageStop(t *testing.T) {
	f := newFake(t, func(w http.ResponseWriter, _ *http.Request, _ int) {
		s := startSSE(w)
		s.messageStart(model.Usage{InputTokens: 5})
		s.textBlock(0, []string{"The answer is"})
		s.messageDelta("end_turn", 3) // but no message_stop
	})
	resp, err := model.Generate(t.Context(), f.model(t), hi())
	require.ErrorIs(t, err, model.ErrTruncated)
	require.Equal(t, "The answer is", resp.Message.Text())
}

func TestStreamBreakClosesBody(t *testing.T) {
	closed := make(chan struct{})
	f := newFake(t, func(w http.ResponseWriter, r *http.Request, _ int) {
		s := startSSE(w)
		s.messageStart(model.Usage{InputTokens: 5})
		s.event("content_block_start", `{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`)
		s.textDelta(0, "first")
		<-r.Context().Done()
		close(closed)
	})
	for c, err := range f.model(t).Stream(t.Context(), hi()) {
		require.NoError(t, err)
		if c.TextDelta != "" {
			break
		}
	}
	select {
	case <-closed:
	case <-time.After(10 * time.Second):
		t.Fatal("breaking out of the stream did not close the HTTP body")
	}
}

func TestAPIErrors(t *testing.T) {
	cases := []struct {
		status   int
		typ      string
		sentinel error
	}{
		{http.StatusBadRequest, "invalid_request_error", model.ErrInvalidRequest},
		{http.StatusUnauthorized, "authentication_error", model.ErrAuth},
		{http.StatusForbidden, "permission_error", model.ErrAuth},
	}
	for _, c := range cases {
		t.Run(c.typ, func(t *testing.T) {
			f := newFake(t, func(w http.ResponseWriter, _ *http.Request, _ int) {
				errorBody(w, c.status, c.typ, "temperature: Extra inputs are not permitted")
			})
			_, err := model.Generate(t.Context(), f.model(t), hi())
			require.ErrorIs(t, err, c.sentinel)
			var apiErr *model.APIError
			require.True(t, errors.As(err, &apiErr))
			require.Equal(t, c.status, apiErr.StatusCode)
			require.Contains(t, err.Error(), "Extra inputs are not permitted")
			require.Equal(t, 1, f.Requests(), "a 4xx other than 408, 409 and 429 is not retried")
		})
	}
}
