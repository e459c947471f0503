package modeltest

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/loomwork/loom/model"
	"github.com/stretchr/testify/require"
)

// Failure is a fault a conformance [Scenario] asks the test server to
// inject.
type Failure int

// The faults.
const (
	// NoFailure: answer normally.
	NoFailure Failure = iota
	// RateLimitOnce: answer the first request with HTTP 429 and a
	// Retry-After of 0 seconds, then answer normally.
	RateLimitOnce
	// ServerErrorAlways: answer every request with HTTP 500.
	ServerErrorAlways
	// Unauthorized: answer with HTTP 401 and the provider's error body.
	Unauthorized
	// Truncated: stream part of the answer, then close the connection
	// without the provider's end-of-stream marker.
	Truncated
	// Stall: stream the first text delta, then send nothing until the
	// request's context is cancelled.
	Stall
	// EndsEarly: stream part of the answer, then end the response cleanly
	// (no connection error) but without the provider's end-of-stream
	// marker or finish reason.
	EndsEarly
	// RateLimitRetryAfter: answer the first request with HTTP 429 and the
	// header Retry-After: Scenario.RetryAfter, then answer normally.
	RateLimitRetryAfter
	// HTMLErrorPage: answer every request with [WriteHTMLPage] and status
	// 502, as a proxy in front of the provider does.
	HTMLErrorPage
	// HTMLSuccess: answer with [WriteHTMLPage] and status 200, as a captive
	// portal or misrouted gateway does.
	HTMLSuccess
	// ResetOnce: drop the first request's connection before any response
	// ([Reset]), then answer normally.
	ResetOnce
	// MalformedEvent: stream the first text delta, then an event whose data
	// is not JSON, then the rest of the answer.
	MalformedEvent
	// MaxTokens: stream the first half of the text, then finish with the
	// provider's output-limit reason (length, max_tokens, MAX_TOKENS).
	MaxTokens
	// MaxTokensInToolCall: stream the first tool call with its arguments cut
	// halfway (Gemini, which sends calls whole: the whole call), then finish
	// with the provider's output-limit reason.
	MaxTokensInToolCall
)

// Scenario tells a provider's test server what to answer, in provider-neutral
// terms. The server speaks the provider's real wire format: it streams Text
// in several deltas, streams each tool call's arguments in several pieces,
// and reports Usage.
type Scenario struct {
	Name      string
	Text      string           // the answer's text; empty when the answer is only tool calls
	ToolCalls []model.ToolCall // the calls to answer with, in order
	Usage     model.Usage      // reported by the server
	Failure   Failure

	// RetryAfter is the Retry-After header value of RateLimitRetryAfter.
	RetryAfter string
	// IdleTimeout and MaxRetryWait, when set, are the model's stall timeout
	// and Retry-After cap (each provider's WithIdleTimeout and
	// WithMaxRetryWait options).
	IdleTimeout, MaxRetryWait time.Duration
}

// Server is what a provider's conformance harness returns for a scenario: a
// model pointed at a test server, and the number of HTTP requests the server
// has received.
type Server struct {
	Model    model.Model
	Requests func() int
}

// Factory starts a test server for the scenario and returns a model talking
// to it. The model must be configured to retry twice with negligible backoff,
// so the retry scenarios run fast, and with the scenario's IdleTimeout and
// MaxRetryWait when they are set. The factory registers cleanup with t.
type Factory func(t *testing.T, s Scenario) Server

// weatherTool is the tool the suite offers.
func weatherTool() model.Tool {
	return model.Tool{
		Name:        "get_weather",
		Description: "Current weather for a city.",
		Schema:      json.RawMessage(`{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}`),
	}
}

func userRequest(text string) model.Request {
	return model.Request{Messages: []model.Message{model.SystemMessage("Be brief."), model.UserMessage(text)}}
}

// Run is the provider conformance suite: plain text, streamed text, one tool
// call, two parallel tool calls, structured output, usage, cancellation
// mid-stream, 429 then success, 500 exhausting retries, 401, a truncated
// stream and a stream that ends cleanly before its end marker, then the
// faults of [RunFaults]. Every provider runs it through its test server.
func Run(t *testing.T, f Factory) {
	t.Run("Faults", func(t *testing.T) { RunFaults(t, f) })
	t.Run("PlainText", func(t *testing.T) {
		s := f(t, Scenario{Name: "plain", Text: "Hello, world.", Usage: model.Usage{InputTokens: 12, OutputTokens: 4}})
		resp, err := model.Generate(t.Context(), s.Model, userRequest("Say hello."))
		require.NoError(t, err)
		require.Equal(t, "Hello, world.", resp.Message.Text())
		require.Equal(t, model.RoleAssistant, resp.Message.Role)
		require.Equal(t, model.FinishStop, resp.FinishReason)
		require.Empty(t, resp.Message.ToolCalls())
	})

	t.Run("StreamingText", func(t *testing.T) {
		want := "One, two, three, four, five, six."
		s := f(t, Scenario{Name: "stream", Text: want})
		var deltas []string
		for c, err := range s.Model.Stream(t.Context(), userRequest("Count.")) {
			require.NoError(t, err)
			if c.TextDelta != "" {
				deltas = append(deltas, c.TextDelta)
			}
		}
		require.Greater(t, len(deltas), 1, "the text must arrive in several deltas")
		got := ""
		for _, d := range deltas {
			got += d
		}
		require.Equal(t, want, got)
	})

	t.Run("ToolCall", func(t *testing.T) {
		call := model.ToolCall{ID: "call_1", Name: "get_weather", Arguments: json.RawMessage(`{"city":"Paris"}`)}
		s := f(t, Scenario{Name: "tool", ToolCalls: []model.ToolCall{call}})
		req := userRequest("Weather in Paris?")
		req.Tools = []model.Tool{weatherTool()}
		resp, err := model.Generate(t.Context(), s.Model, req)
		require.NoError(t, err)
		calls := resp.Message.ToolCalls()
		require.Len(t, calls, 1)
		require.Equal(t, "get_weather", calls[0].Name)
		require.NotEmpty(t, calls[0].ID)
		require.JSONEq(t, `{"city":"Paris"}`, string(calls[0].Arguments))
		require.Equal(t, model.FinishToolCalls, resp.FinishReason)
	})

	t.Run("ParallelToolCalls", func(t *testing.T) {
		calls := []model.ToolCall{
			{ID: "call_a", Name: "get_weather", Arguments: json.RawMessage(`{"city":"Paris"}`)},
			{ID: "call_b", Name: "get_weather", Arguments: json.RawMessage(`{"city":"Tokyo"}`)},
		}
		s := f(t, Scenario{Name: "parallel", ToolCalls: calls})
		req := userRequest("Weather in Paris and Tokyo?")
		req.Tools = []model.Tool{weatherTool()}
		resp, err := model.Generate(t.Context(), s.Model, req)
		require.NoError(t, err)
		got := resp.Message.ToolCalls()
		require.Len(t, got, 2)
		require.NotEqual(t, got[0].ID, got[1].ID)
		require.JSONEq(t, `{"city":"Paris"}`, string(got[0].Arguments))
		require.JSONEq(t, `{"city":"Tokyo"}`, string(got[1].Arguments))
	})

	t.Run("StructuredOutput", func(t *testing.T) {
		s := f(t, Scenario{Name: "structured", Text: `{"answer":42}`})
		req := userRequest("The answer?")
		req.ResponseSchema = &model.ResponseSchema{Name: "answer", Schema: json.RawMessage(`{"type":"object","properties":{"answer":{"type":"integer"}},"required":["answer"],"additionalProperties":false}`)}
		resp, err := model.Generate(t.Context(), s.Model, req)
		require.NoError(t, err)
		require.JSONEq(t, `{"answer":42}`, resp.Message.Text())
	})

	t.Run("Usage", func(t *testing.T) {
		u := model.Usage{InputTokens: 120, OutputTokens: 30, CachedInputTokens: 100}
		s := f(t, Scenario{Name: "usage", Text: "ok", Usage: u})
		resp, err := model.Generate(t.Context(), s.Model, userRequest("ok?"))
		require.NoError(t, err)
		require.Equal(t, u, resp.Usage)
	})

	t.Run("CancelMidStream", func(t *testing.T) {
		s := f(t, Scenario{Name: "stall", Text: "first words, then silence", Failure: Stall})
		ctx, cancel := context.WithCancel(t.Context())
		defer cancel()
		start := time.Now()
		var gotErr error
		for c, err := range s.Model.Stream(ctx, userRequest("Talk.")) {
			if err != nil {
				gotErr = err
				break
			}
			if c.TextDelta != "" {
				cancel()
			}
		}
		require.Error(t, gotErr, "a cancelled stream must end with an error")
		require.ErrorIs(t, gotErr, context.Canceled)
		require.Less(t, time.Since(start), 5*time.Second, "the stream must stop promptly after cancellation")
	})

	t.Run("RateLimitThenSuccess", func(t *testing.T) {
		s := f(t, Scenario{Name: "429", Text: "after retry", Failure: RateLimitOnce})
		resp, err := model.Generate(t.Context(), s.Model, userRequest("hi"))
		require.NoError(t, err)
		require.Equal(t, "after retry", resp.Message.Text())
		require.Equal(t, 2, s.Requests(), "one 429, then one success")
	})

	t.Run("ServerErrorExhaustsRetries", func(t *testing.T) {
		s := f(t, Scenario{Name: "500", Failure: ServerErrorAlways})
		_, err := model.Generate(t.Context(), s.Model, userRequest("hi"))
		require.ErrorIs(t, err, model.ErrServer)
		var apiErr *model.APIError
		require.True(t, errors.As(err, &apiErr))
		require.Equal(t, 500, apiErr.StatusCode)
		require.Equal(t, 3, s.Requests(), "the first try and two retries")
	})

	t.Run("Unauthorized", func(t *testing.T) {
		s := f(t, Scenario{Name: "401", Failure: Unauthorized})
		_, err := model.Generate(t.Context(), s.Model, userRequest("hi"))
		require.ErrorIs(t, err, model.ErrAuth)
		require.NotContains(t, err.Error(), TestKey, "the key must never appear in an error")
		require.Equal(t, 1, s.Requests(), "a 401 is not retried")
	})

	t.Run("TruncatedStream", func(t *testing.T) {
		s := f(t, Scenario{Name: "truncated", Text: "this answer is cut off before it ends", Failure: Truncated})
		_, err := model.Generate(t.Context(), s.Model, userRequest("hi"))
		require.ErrorIs(t, err, model.ErrTruncated)
	})

	t.Run("StreamEndsEarly", func(t *testing.T) {
		s := f(t, Scenario{Name: "ends-early", Text: "this answer stops before its end marker", Failure: EndsEarly})
		_, err := model.Generate(t.Context(), s.Model, userRequest("hi"))
		require.ErrorIs(t, err, model.ErrTruncated, "a cleanly closed stream without the end marker is not a complete answer")
	})
}

// TestKey is the API key conformance harnesses configure; the suite checks
// it never appears in errors.
const TestKey = "sk-loom-test-key-0123456789"
