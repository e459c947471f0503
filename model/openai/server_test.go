package openai_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/loomwork/loom/model"
	"github.com/loomwork/loom/model/internal/providertest"
	"github.com/loomwork/loom/model/modeltest"
	"github.com/loomwork/loom/model/openai"
	"github.com/stretchr/testify/require"
)

// fakeOpenAI is a Chat Completions server speaking OpenAI's wire format:
// SSE "data:" lines of chat.completion.chunk objects, a usage chunk with no
// choices (stream_options.include_usage), then "data: [DONE]".
type fakeOpenAI struct{ *providertest.Recorder }

func newFake(t testing.TB, answer func(w http.ResponseWriter, r *http.Request, i int)) *fakeOpenAI {
	return &fakeOpenAI{providertest.NewRecorder(t, providertest.Config{
		Route: func(r *http.Request) bool {
			return r.Method == http.MethodPost && r.URL.Path == "/v1/chat/completions"
		},
		Reject: func(w http.ResponseWriter, status int, msg string) { http.Error(w, msg, status) },
		Answer: answer,
	})}
}

func (f *fakeOpenAI) model(t testing.TB, opts ...model.ClientOption) *openai.Model {
	opts = providertest.Options(f.URL()+"/v1", opts...)
	m, err := openai.New("gpt-5.4-mini", opts...)
	require.NoError(t, err)
	return m
}

// sse writes Server-Sent Events as OpenAI does.
type sse struct {
	w http.ResponseWriter
}

func startSSE(w http.ResponseWriter) sse {
	w.Header().Set("Content-Type", "text/event-stream; charset=utf-8")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	return sse{w}
}

func (s sse) data(v string) {
	fmt.Fprintf(s.w, "data: %s\n\n", v)
	s.w.(http.Flusher).Flush()
}

func (s sse) chunk(choices string) {
	s.data(`{"id":"chatcmpl-AbC123","object":"chat.completion.chunk","created":1730000000,"model":"gpt-5.4-mini-2026-03-17","service_tier":"default","system_fingerprint":"fp_1a2b3c","choices":[` + choices + `],"usage":null}`)
}

func (s sse) role() {
	s.chunk(`{"index":0,"delta":{"role":"assistant","content":"","refusal":null},"logprobs":null,"finish_reason":null}`)
}

func (s sse) text(piece string) {
	s.chunk(`{"index":0,"delta":{"content":` + providertest.JSONString(piece) + `},"logprobs":null,"finish_reason":null}`)
}

func (s sse) finish(reason string) {
	s.chunk(`{"index":0,"delta":{},"logprobs":null,"finish_reason":"` + reason + `"}`)
}

func (s sse) usage(u model.Usage) {
	s.data(fmt.Sprintf(`{"id":"chatcmpl-AbC123","object":"chat.completion.chunk","created":1730000000,"model":"gpt-5.4-mini-2026-03-17","service_tier":"default","system_fingerprint":"fp_1a2b3c","choices":[],"usage":{"prompt_tokens":%d,"completion_tokens":%d,"total_tokens":%d,"prompt_tokens_details":{"cached_tokens":%d,"audio_tokens":0},"completion_tokens_details":{"reasoning_tokens":0,"audio_tokens":0,"accepted_prediction_tokens":0,"rejected_prediction_tokens":0}}}`,
		u.InputTokens, u.OutputTokens, u.InputTokens+u.OutputTokens, u.CachedInputTokens))
}

func (s sse) done() { s.data("[DONE]") }

// toolCall streams one call: a first fragment with id and name, then the
// arguments in pieces of size n.
func (s sse) toolCall(index int, c model.ToolCall, n int) {
	s.chunk(fmt.Sprintf(`{"index":0,"delta":{"tool_calls":[{"index":%d,"id":%s,"type":"function","function":{"name":%s,"arguments":""}}]},"logprobs":null,"finish_reason":null}`,
		index, providertest.JSONString(c.ID), providertest.JSONString(c.Name)))
	for _, p := range providertest.Split(string(c.Arguments), n) {
		s.chunk(fmt.Sprintf(`{"index":0,"delta":{"tool_calls":[{"index":%d,"function":{"arguments":%s}}]},"logprobs":null,"finish_reason":null}`, index, providertest.JSONString(p)))
	}
}

// split cuts s into pieces of at most n bytes.

func apiError(w http.ResponseWriter, status int, typ, code, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	fmt.Fprintf(w, `{"error":{"message":%s,"type":%q,"param":null,"code":%s}}`, providertest.JSONString(msg), typ, code)
}

// scenario answers a conformance scenario in OpenAI's wire format.
func scenario(s modeltest.Scenario) func(w http.ResponseWriter, r *http.Request, i int) {
	return func(w http.ResponseWriter, r *http.Request, i int) {
		if modeltest.WriteTransportFault(w, s, i) {
			return
		}
		switch s.Failure {
		case modeltest.RateLimitRetryAfter:
			if i == 0 {
				w.Header().Set("Retry-After", s.RetryAfter)
				apiError(w, http.StatusTooManyRequests, "requests", `"rate_limit_exceeded"`, "Rate limit reached for requests.")
				return
			}
		case modeltest.RateLimitOnce:
			if i == 0 {
				w.Header().Set("Retry-After", "0")
				apiError(w, http.StatusTooManyRequests, "requests", `"rate_limit_exceeded"`, "Rate limit reached for requests. Please try again in 0s.")
				return
			}
		case modeltest.ServerErrorAlways:
			apiError(w, http.StatusInternalServerError, "server_error", "null", "The server had an error while processing your request. Sorry about that!")
			return
		case modeltest.Unauthorized:
			// Echo the key, as a careless gateway might: loom must redact it.
			apiError(w, http.StatusUnauthorized, "invalid_request_error", `"invalid_api_key"`, "Incorrect API key provided: "+strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")+". You can find your API key at https://platform.openai.com/account/api-keys.")
			return
		}
		out := startSSE(w)
		out.role()
		pieces := providertest.Split(s.Text, 5)
		switch s.Failure {
		case modeltest.Truncated:
			for _, p := range pieces[:len(pieces)/2] {
				out.text(p)
			}
			panic(http.ErrAbortHandler) // drop the connection mid-stream
		case modeltest.EndsEarly:
			for _, p := range pieces[:len(pieces)/2] {
				out.text(p)
			}
			return // a clean end, but no finish_reason and no [DONE]
		case modeltest.Stall:
			out.text(pieces[0])
			<-r.Context().Done()
			return
		case modeltest.MalformedEvent:
			out.text(pieces[0])
			out.data(modeltest.MalformedData)
		case modeltest.MaxTokens:
			for _, p := range pieces[:len(pieces)/2] {
				out.text(p)
			}
			out.finish("length")
			out.usage(s.Usage)
			out.done()
			return
		case modeltest.MaxTokensInToolCall:
			out.toolCall(0, modeltest.CutCall(s.ToolCalls[0]), 3)
			out.finish("length")
			out.usage(s.Usage)
			out.done()
			return
		}
		for _, p := range pieces {
			out.text(p)
		}
		for i, c := range s.ToolCalls {
			out.toolCall(i, c, 3)
		}
		if len(s.ToolCalls) > 0 {
			out.finish("tool_calls")
		} else {
			out.finish("stop")
		}
		out.usage(s.Usage)
		out.done()
	}
}
