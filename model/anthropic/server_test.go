package anthropic_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/loomwork/loom/model"
	"github.com/loomwork/loom/model/anthropic"
	"github.com/loomwork/loom/model/internal/providertest"
	"github.com/loomwork/loom/model/modeltest"
	"github.com/stretchr/testify/require"
)

// fakeAnthropic is a Messages API server speaking Anthropic's wire format:
// named SSE events (message_start, content_block_start/delta/stop, ping,
// message_delta, message_stop) and {"type":"error",...} bodies.
type fakeAnthropic struct{ *providertest.Recorder }

func newFake(t testing.TB, answer func(w http.ResponseWriter, r *http.Request, i int)) *fakeAnthropic {
	return &fakeAnthropic{providertest.NewRecorder(t, providertest.Config{
		Route: func(r *http.Request) bool {
			return r.Method == http.MethodPost && r.URL.Path == "/v1/messages"
		},
		Reject: func(w http.ResponseWriter, status int, msg string) {
			typ := "invalid_request_error"
			if status == http.StatusNotFound {
				typ = "not_found_error"
			}
			errorBody(w, status, typ, msg)
		},
		Answer: answer,
	})}
}

func (f *fakeAnthropic) model(t testing.TB, opts ...model.ClientOption) *anthropic.Model {
	opts = providertest.Options(f.URL(), opts...)
	m, err := anthropic.New("claude-sonnet-5-5", opts...)
	require.NoError(t, err)
	return m
}

func errorBody(w http.ResponseWriter, status int, typ, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("request-id", "req_011CTestRequest")
	w.WriteHeader(status)
	fmt.Fprintf(w, `{"type":"error","error":{"type":%q,"message":%s},"request_id":"req_011CTestRequest"}`, typ, providertest.JSONString(msg))
}

type sse struct{ w http.ResponseWriter }

func startSSE(w http.ResponseWriter) sse {
	w.Header().Set("Content-Type", "text/event-stream; charset=utf-8")
	w.Header().Set("Cache-Control", "no-cache")
	w.Header().Set("request-id", "req_011CTestRequest")
	w.WriteHeader(http.StatusOK)
	return sse{w}
}

func (s sse) event(name, data string) {
	fmt.Fprintf(s.w, "event: %s\ndata: %s\n\n", name, data)
	s.w.(http.Flusher).Flush()
}

func (s sse) messageStart(u model.Usage) {
	s.event("message_start", fmt.Sprintf(`{"type":"message_start","message":{"id":"msg_01XFDUDYJgAACzvnptvVoYEL","type":"message","role":"assistant","model":"claude-sonnet-5-5","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":%d,"cache_creation_input_tokens":0,"cache_read_input_tokens":%d,"output_tokens":1,"service_tier":"standard"}}}`,
		u.InputTokens-u.CachedInputTokens, u.CachedInputTokens))
}

func (s sse) ping() { s.event("ping", `{"type": "ping"}`) }

func (s sse) textBlock(index int, pieces []string) {
	s.event("content_block_start", fmt.Sprintf(`{"type":"content_block_start","index":%d,"content_block":{"type":"text","text":""}}`, index))
	for _, p := range pieces {
		s.textDelta(index, p)
	}
	s.blockStop(index)
}

func (s sse) textDelta(index int, p string) {
	s.event("content_block_delta", fmt.Sprintf(`{"type":"content_block_delta","index":%d,"delta":{"type":"text_delta","text":%s}}`, index, providertest.JSONString(p)))
}

func (s sse) toolBlock(index int, c model.ToolCall, n int) {
	s.event("content_block_start", fmt.Sprintf(`{"type":"content_block_start","index":%d,"content_block":{"type":"tool_use","id":%s,"name":%s,"input":{}}}`, index, providertest.JSONString(c.ID), providertest.JSONString(c.Name)))
	s.event("content_block_delta", fmt.Sprintf(`{"type":"content_block_delta","index":%d,"delta":{"type":"input_json_delta","partial_json":""}}`, index))
	for _, p := range providertest.Split(string(c.Arguments), n) {
		s.event("content_block_delta", fmt.Sprintf(`{"type":"content_block_delta","index":%d,"delta":{"type":"input_json_delta","partial_json":%s}}`, index, providertest.JSONString(p)))
	}
	s.blockStop(index)
}

func (s sse) blockStop(index int) {
	s.event("content_block_stop", fmt.Sprintf(`{"type":"content_block_stop","index":%d}`, index))
}

func (s sse) messageDelta(stop string, output int64) {
	s.event("message_delta", fmt.Sprintf(`{"type":"message_delta","delta":{"stop_reason":%q,"stop_sequence":null},"usage":{"output_tokens":%d}}`, stop, output))
}

func (s sse) messageStop() { s.event("message_stop", `{"type":"message_stop"}`) }

// scenario answers a conformance scenario in Anthropic's wire format.
func scenario(s modeltest.Scenario) func(w http.ResponseWriter, r *http.Request, i int) {
	return func(w http.ResponseWriter, r *http.Request, i int) {
		if modeltest.WriteTransportFault(w, s, i) {
			return
		}
		switch s.Failure {
		case modeltest.RateLimitRetryAfter:
			if i == 0 {
				w.Header().Set("Retry-After", s.RetryAfter)
				errorBody(w, http.StatusTooManyRequests, "rate_limit_error", "Number of request tokens has exceeded your per-minute rate limit.")
				return
			}
		case modeltest.RateLimitOnce:
			if i == 0 {
				w.Header().Set("Retry-After", "0")
				errorBody(w, http.StatusTooManyRequests, "rate_limit_error", "Number of request tokens has exceeded your per-minute rate limit.")
				return
			}
		case modeltest.ServerErrorAlways:
			errorBody(w, http.StatusInternalServerError, "api_error", "Internal server error")
			return
		case modeltest.Unauthorized:
			errorBody(w, http.StatusUnauthorized, "authentication_error", "invalid x-api-key: "+strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer "))
			return
		}
		out := startSSE(w)
		out.messageStart(s.Usage)
		out.ping()
		pieces := providertest.Split(s.Text, 5)
		switch s.Failure {
		case modeltest.Truncated:
			out.event("content_block_start", `{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`)
			for _, p := range pieces[:len(pieces)/2] {
				out.textDelta(0, p)
			}
			panic(http.ErrAbortHandler)
		case modeltest.EndsEarly:
			out.textBlock(0, pieces[:len(pieces)/2])
			return // a clean end, but no message_delta and no message_stop
		case modeltest.Stall:
			out.event("content_block_start", `{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`)
			out.textDelta(0, pieces[0])
			<-r.Context().Done()
			return
		case modeltest.MalformedEvent:
			out.event("content_block_start", `{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`)
			out.textDelta(0, pieces[0])
			out.event("content_block_delta", modeltest.MalformedData)
		case modeltest.MaxTokens:
			out.textBlock(0, pieces[:len(pieces)/2])
			out.messageDelta("max_tokens", s.Usage.OutputTokens)
			out.messageStop()
			return
		case modeltest.MaxTokensInToolCall:
			out.toolBlock(0, modeltest.CutCall(s.ToolCalls[0]), 3)
			out.messageDelta("max_tokens", s.Usage.OutputTokens)
			out.messageStop()
			return
		}
		index := 0
		if s.Text != "" {
			out.textBlock(index, pieces)
			index++
		}
		for _, c := range s.ToolCalls {
			out.toolBlock(index, c, 3)
			index++
		}
		stop := "end_turn"
		if len(s.ToolCalls) > 0 {
			stop = "tool_use"
		}
		out.messageDelta(stop, s.Usage.OutputTokens)
		out.messageStop()
	}
}
