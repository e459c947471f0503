package openai_test

import (
	"encoding/json"
	"errors"
	"net/http"
	"testing"
	"time"

	"github.com/loomwork/loom/model"
	"github.com/loomwork/loom/model/internal/providertest"
	"github.com/loomwork/loom/model/openai"
	"github.com/stretchr/testify/require"
)

func hi() model.Request {
	return model.Request{Messages: []model.Message{model.UserMessage("hi")}}
}

func TestStreamToolCallsInterleaved(t *testing.T) {
	// Two calls whose argument fragments alternate, one byte at a time, with
	// text before them: the fragments must be joined by index.
	f := newFake(t, func(w http.ResponseWriter, _ *http.Request, _ int) {
		s := startSSE(w)
		s.role()
		s.text("Checking ")
		s.text("both.")
		s.chunk(`{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_p","type":"function","function":{"name":"get_weather","arguments":""}}]},"finish_reason":null}`)
		s.chunk(`{"index":0,"delta":{"tool_calls":[{"index":1,"id":"call_t","type":"function","function":{"name":"get_time","arguments":""}}]},"finish_reason":null}`)
		a, b := `{"city":"Paris"}`, `{"zone":"Asia/Tokyo"}`
		for i := 0; i < len(a) || i < len(b); i++ {
			if i < len(a) {
				s.chunk(`{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":` + providertest.JSONString(a[i:i+1]) + `}}]},"finish_reason":null}`)
			}
			if i < len(b) {
				s.chunk(`{"index":0,"delta":{"tool_calls":[{"index":1,"function":{"arguments":` + providertest.JSONString(b[i:i+1]) + `}}]},"finish_reason":null}`)
			}
		}
		s.finish("tool_calls")
		s.usage(model.Usage{InputTokens: 50, OutputTokens: 20, CachedInputTokens: 32})
		s.done()
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
	require.Greater(t, deltas, 30, "arguments arrive in many fragments")
	require.Equal(t, "Checking both.", resp.Message.Text())
	require.Equal(t, []model.ToolCall{
		{ID: "call_p", Name: "get_weather", Arguments: json.RawMessage(`{"city":"Paris"}`)},
		{ID: "call_t", Name: "get_time", Arguments: json.RawMessage(`{"zone":"Asia/Tokyo"}`)},
	}, resp.Message.ToolCalls())
	require.Equal(t, model.FinishToolCalls, resp.FinishReason)
	require.Equal(t, model.Usage{InputTokens: 50, OutputTokens: 20, CachedInputTokens: 32}, resp.Usage)
}

func TestStreamFinishReasons(t *testing.T) {
	cases := []struct {
		name    string
		reason  string
		refusal bool
		call    bool
		want    model.FinishReason
	}{
		{"stop", "stop", false, false, model.FinishStop},
		{"length", "length", false, false, model.FinishLength},
		{"tool_calls", "tool_calls", false, true, model.FinishToolCalls},
		{"stop after calls", "stop", false, true, model.FinishToolCalls},
		{"content_filter", "content_filter", false, false, model.FinishContentFilter},
		{"refusal", "stop", true, false, model.FinishContentFilter},
		{"unknown", "insufficient_system_resource", false, false, model.FinishOther},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := newFake(t, func(w http.ResponseWriter, _ *http.Request, _ int) {
				s := startSSE(w)
				s.role()
				if c.refusal {
					s.chunk(`{"index":0,"delta":{"refusal":"I can't help with that."},"finish_reason":null}`)
				}
				if c.call {
					s.chunk(`{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"name":"f","arguments":"{}"}}]},"finish_reason":null}`)
				}
				s.finish(c.reason)
				s.done()
			})
			resp, err := model.Generate(t.Context(), f.model(t), hi())
			require.NoError(t, err)
			require.Equal(t, c.want, resp.FinishReason)
			if c.refusal {
				require.Equal(t, "I can't help with that.", resp.Message.Text())
			}
			if c.call {
				require.Equal(t, "call_0", resp.Message.ToolCalls()[0].ID, "a call without an id gets one")
			}
		})
	}
}

func TestStreamUsageLastReportWins(t *testing.T) {
	// vLLM with continuous usage stats reports a running total on every chunk.
	f := newFake(t, func(w http.ResponseWriter, _ *http.Request, _ int) {
		s := startSSE(w)
		s.data(`{"id":"x","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"content":"a"},"finish_reason":null}],"usage":{"prompt_tokens":9,"completion_tokens":1,"total_tokens":10}}`)
		s.data(`{"id":"x","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"content":"b"},"finish_reason":"stop"}],"usage":{"prompt_tokens":9,"completion_tokens":2,"total_tokens":11}}`)
		s.done()
	})
	resp, err := model.Generate(t.Context(), f.model(t), hi())
	require.NoError(t, err)
	require.Equal(t, "ab", resp.Message.Text())
	require.Equal(t, model.Usage{InputTokens: 9, OutputTokens: 2}, resp.Usage)
}

func TestStreamEndsWithoutFinish(t *testing.T) {
	// The server closes the response cleanly, but before finish_reason and
	// [DONE]: a silently short answer would be wrong.
	f := newFake(t, func(w http.ResponseWriter, _ *http.Request, _ int) {
		s := startSSE(w)
		s.role()
		s.text("The answer is")
	})
	resp, err := model.Generate(t.Context(), f.model(t), hi())
	require.ErrorIs(t, err, model.ErrTruncated)
	require.Equal(t, "The answer is", resp.Message.Text(), "the partial answer is kept for inspection")
}

func TestStreamErrorEvent(t *testing.T) {
	f := newFake(t, func(w http.ResponseWriter, _ *http.Request, _ int) {
		s := startSSE(w)
		s.text("partial")
		s.data(`{"error":{"message":"The model is overloaded.","type":"server_error"}}`)
	})
	_, err := model.Generate(t.Context(), f.model(t), hi())
	require.ErrorIs(t, err, model.ErrServer)
	require.ErrorContains(t, err, "overloaded")
}

func TestStreamBreakClosesBody(t *testing.T) {
	closed := make(chan struct{})
	f := newFake(t, func(w http.ResponseWriter, r *http.Request, _ int) {
		s := startSSE(w)
		s.text("first")
		<-r.Context().Done() // the client went away
		close(closed)
	})
	for c, err := range f.model(t).Stream(t.Context(), hi()) {
		require.NoError(t, err)
		require.Equal(t, "first", c.TextDelta)
		break
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
		sentinel error
		tries    int
	}{
		{http.StatusBadRequest, model.ErrInvalidRequest, 1},
		{http.StatusUnauthorized, model.ErrAuth, 1},
		{http.StatusForbidden, model.ErrAuth, 1},
		{http.StatusTooManyRequests, model.ErrRateLimited, 3},
		{http.StatusServiceUnavailable, model.ErrServer, 3},
	}
	for _, c := range cases {
		t.Run(http.StatusText(c.status), func(t *testing.T) {
			f := newFake(t, func(w http.ResponseWriter, _ *http.Request, _ int) {
				apiError(w, c.status, "invalid_request_error", "null", "Unsupported parameter: 'temperature'.")
			})
			_, err := model.Generate(t.Context(), f.model(t), hi())
			require.ErrorIs(t, err, c.sentinel)
			var apiErr *model.APIError
			require.True(t, errors.As(err, &apiErr))
			require.Equal(t, c.status, apiErr.StatusCode)
			require.Equal(t, "openai", apiErr.Provider)
			require.Contains(t, err.Error(), "Unsupported parameter: 'temperature'.", "the provider's message is kept")
			require.Equal(t, c.tries, f.Requests())
		})
	}
}

func TestConnectionRefused(t *testing.T) {
	m, err := openai.New("gpt-5.4-mini", model.WithAPIKey("k"), model.WithBaseURL("http://127.0.0.1:1/v1"), model.WithMaxRetries(0))
	require.NoError(t, err)
	_, err = model.Generate(t.Context(), m, hi())
	require.Error(t, err)
	require.NotErrorIs(t, err, model.ErrTruncated)
	require.ErrorContains(t, err, "request to http://127.0.0.1:1/v1 failed")
}

func TestStreamWithoutDoneIsTruncated(t *testing.T) {
	// OpenAI's protocol ends every stream with "data: [DONE]", after the
	// usage chunk: a finish_reason alone does not prove the usage arrived.
	f := newFake(t, func(w http.ResponseWriter, _ *http.Request, _ int) {
		s := startSSE(w)
		s.role()
		s.text("complete-looking answer")
		s.finish("stop")
	})
	_, err := model.Generate(t.Context(), f.model(t), hi())
	require.ErrorIs(t, err, model.ErrTruncated)
	require.ErrorContains(t, err, "data: [DONE]")
}
