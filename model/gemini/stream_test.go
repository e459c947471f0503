package gemini_test

import (
	"encoding/json"
	"errors"
	"net/http"
	"testing"
	"time"

	"github.com/loomwork/loom/model"
	"github.com/loomwork/loom/model/gemini"
	"github.com/stretchr/testify/require"
)

func hi() model.Request {
	return model.Request{Messages: []model.Message{model.UserMessage("hi")}}
}

func TestStreamTextAndCalls(t *testing.T) {
	f := newFake(t, func(w http.ResponseWriter, _ *http.Request, _ int) {
		s := startSSE(w)
		u := model.Usage{InputTokens: 120, CachedInputTokens: 100}
		s.chunk(`{"text":"thinking…","thought":true}`, "", u)
		s.chunk(textPart("Checking "), "", u)
		s.chunk(textPart("both."), "", u)
		s.chunk(`{"functionCall":{"id":"fc_1","name":"get_weather","args":{"city":"Paris"}}},{"functionCall":{"name":"get_time","args":{"zone":"Asia/Tokyo"}}}`, "", u)
		s.data(`{"candidates":[{"content":{"parts":[{"text":""}],"role":"model"},"finishReason":"STOP","index":0}],"usageMetadata":{"promptTokenCount":120,"candidatesTokenCount":20,"thoughtsTokenCount":10,"cachedContentTokenCount":100,"totalTokenCount":150},"modelVersion":"gemini-3.8-flash","responseId":"r1"}`)
	})
	resp, err := model.Generate(t.Context(), f.model(t), hi())
	require.NoError(t, err)
	require.Equal(t, "Checking both.", resp.Message.Text(), "thought summaries are not answer text")
	require.Equal(t, []model.ToolCall{
		{ID: "fc_1", Name: "get_weather", Arguments: json.RawMessage(`{"city":"Paris"}`)},
		{ID: "gemini-call-resp-7Yx2-1", Name: "get_time", Arguments: json.RawMessage(`{"zone":"Asia/Tokyo"}`)},
	}, resp.Message.ToolCalls())
	require.Equal(t, model.FinishToolCalls, resp.FinishReason, "Gemini says STOP after calls")
	require.Equal(t, model.Usage{InputTokens: 120, OutputTokens: 30, CachedInputTokens: 100}, resp.Usage, "thinking counts as output")
}

func TestStreamEndings(t *testing.T) {
	u := model.Usage{InputTokens: 5, OutputTokens: 1}
	cases := []struct {
		name   string
		send   func(s sse)
		finish model.FinishReason
		err    error
		errMsg string
	}{
		{"stop", func(s sse) { s.chunk(textPart("x"), "STOP", u) }, model.FinishStop, nil, ""},
		{"max tokens with text", func(s sse) { s.chunk(textPart("x"), "MAX_TOKENS", u) }, model.FinishLength, nil, ""},
		{"safety", func(s sse) { s.chunk(textPart("x"), "SAFETY", u) }, model.FinishContentFilter, nil, ""},
		{"safety with no parts", func(s sse) {
			s.data(`{"candidates":[{"finishReason":"SAFETY","index":0,"safetyRatings":[{"category":"HARM_CATEGORY_DANGEROUS_CONTENT","probability":"HIGH","blocked":true}]}],"usageMetadata":{"promptTokenCount":5,"totalTokenCount":5}}`)
		}, model.FinishContentFilter, nil, ""},
		{"prompt blocked", func(s sse) {
			s.data(`{"promptFeedback":{"blockReason":"PROHIBITED_CONTENT"},"usageMetadata":{"promptTokenCount":5,"totalTokenCount":5}}`)
		}, model.FinishContentFilter, nil, ""},
		{"recitation", func(s sse) { s.chunk(textPart("x"), "RECITATION", u) }, model.FinishContentFilter, nil, ""},
		{"empty answer", func(s sse) {
			s.data(`{"candidates":[{"content":{"role":"model"},"finishReason":"STOP","index":0}],"usageMetadata":{"promptTokenCount":5,"totalTokenCount":5}}`)
		}, "", gemini.ErrEmptyAnswer, "without text or a tool call"},
		{"empty after thinking to the limit", func(s sse) {
			s.data(`{"candidates":[{"content":{"parts":[{"text":"hm","thought":true}],"role":"model"},"finishReason":"MAX_TOKENS","index":0}],"usageMetadata":{"promptTokenCount":5,"thoughtsTokenCount":100,"totalTokenCount":105}}`)
		}, "", gemini.ErrEmptyAnswer, "raise Options.MaxOutputTokens"},
		{"malformed call", func(s sse) {
			s.data(`{"candidates":[{"content":{"parts":[],"role":"model"},"finishReason":"MALFORMED_FUNCTION_CALL","finishMessage":"Malformed function call: get_weather(city=)","index":0}]}`)
		}, "", gemini.ErrEmptyAnswer, "MALFORMED_FUNCTION_CALL"}, // the SDK drops finishMessage on the Gemini API
		{"no finish reason", func(s sse) { s.chunk(textPart("The answer is"), "", u) }, "", model.ErrTruncated, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := newFake(t, func(w http.ResponseWriter, _ *http.Request, _ int) { c.send(startSSE(w)) })
			resp, err := model.Generate(t.Context(), f.model(t), hi())
			if c.err != nil {
				require.ErrorIs(t, err, c.err)
				require.ErrorContains(t, err, c.errMsg)
				return
			}
			require.NoError(t, err)
			require.Equal(t, c.finish, resp.FinishReason)
		})
	}
}

func TestStreamErrorChunk(t *testing.T) {
	f := newFake(t, func(w http.ResponseWriter, _ *http.Request, _ int) {
		s := startSSE(w)
		s.chunk(textPart("partial"), "", model.Usage{InputTokens: 5})
		s.data(`{"error":{"code":503,"message":"The model is overloaded. Please try again later.","status":"UNAVAILABLE"}}`)
	})
	_, err := model.Generate(t.Context(), f.model(t), hi())
	require.ErrorIs(t, err, model.ErrServer)
	require.ErrorContains(t, err, "overloaded")
}

func TestAPIErrors(t *testing.T) {
	t.Run("bad key is a 400 on the Gemini API", func(t *testing.T) {
		f := newFake(t, func(w http.ResponseWriter, _ *http.Request, _ int) {
			w.Header().Set("Content-Type", "application/json; charset=UTF-8")
			w.WriteHeader(http.StatusBadRequest)
			_, _ = w.Write([]byte(`{"error":{"code":400,"message":"API key not valid. Please pass a valid API key.","status":"INVALID_ARGUMENT","details":[{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"API_KEY_INVALID","domain":"googleapis.com","metadata":{"service":"generativelanguage.googleapis.com"}}]}}`))
		})
		_, err := model.Generate(t.Context(), f.model(t), hi())
		require.ErrorIs(t, err, model.ErrAuth)
		require.ErrorContains(t, err, "GEMINI_API_KEY")
		var apiErr *model.APIError
		require.True(t, errors.As(err, &apiErr))
		require.Equal(t, 400, apiErr.StatusCode)
		require.Equal(t, 1, f.Requests())
	})
	t.Run("permission denied", func(t *testing.T) {
		f := newFake(t, func(w http.ResponseWriter, _ *http.Request, _ int) {
			errorBody(w, http.StatusForbidden, "PERMISSION_DENIED", "Your API key was reported as leaked. Please use another API key.")
		})
		_, err := model.Generate(t.Context(), f.model(t), hi())
		require.ErrorIs(t, err, model.ErrAuth)
		require.ErrorContains(t, err, "reported as leaked")
	})
	t.Run("bad request", func(t *testing.T) {
		f := newFake(t, func(w http.ResponseWriter, _ *http.Request, _ int) {
			errorBody(w, http.StatusBadRequest, "INVALID_ARGUMENT", "Invalid value at 'generation_config.temperature'")
		})
		_, err := model.Generate(t.Context(), f.model(t), hi())
		require.ErrorIs(t, err, model.ErrInvalidRequest)
		require.NotErrorIs(t, err, model.ErrAuth)
	})
}

func TestStreamBreakClosesBody(t *testing.T) {
	closed := make(chan struct{})
	f := newFake(t, func(w http.ResponseWriter, r *http.Request, _ int) {
		startSSE(w).chunk(textPart("first"), "", model.Usage{InputTokens: 5})
		<-r.Context().Done()
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

func TestMalformedCallIsSummarised(t *testing.T) {
	// Arguments that are not an object make genai's decoder fail with a
	// dump of the whole response; loom reports the field and types only.
	f := newFake(t, func(w http.ResponseWriter, _ *http.Request, _ int) {
		startSSE(w).data(`{"candidates":[{"content":{"parts":[{"functionCall":{"name":"get_weather","args":"Paris, secret-ish text"}}],"role":"model"},"index":0}],"responseId":"r1"}`)
	})
	_, err := model.Generate(t.Context(), f.model(t), hi())
	require.ErrorIs(t, err, model.ErrMalformedResponse)
	require.NotErrorIs(t, err, model.ErrTruncated)
	require.NotContains(t, err.Error(), "map[")
	require.NotContains(t, err.Error(), "secret-ish")
	require.Less(t, len(err.Error()), 400, err.Error())
}
