package modeltest

import (
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/loomwork/loom/model"
	"github.com/stretchr/testify/require"
)

// HTMLTitle is the title of the page [WriteHTMLPage] sends, which a
// provider's error must quote instead of the page.
const HTMLTitle = "502 Bad Gateway"

// WriteHTMLPage answers with a proxy's HTML error page of about 6 KB and
// the given status, whatever the provider's wire format.
func WriteHTMLPage(w http.ResponseWriter, status int) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	var b strings.Builder
	b.WriteString("<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>" + HTMLTitle + "</title>\n<style>body{font-family:sans-serif}</style></head>\n<body><h1>Bad Gateway</h1>\n")
	for range 100 {
		b.WriteString("<p>The upstream server did not answer in time. Please try again later.</p>\n")
	}
	b.WriteString("</body></html>\n")
	_, _ = w.Write([]byte(b.String()))
}

// Reset drops the request's connection without answering.
func Reset(w http.ResponseWriter) {
	conn, _, err := w.(http.Hijacker).Hijack()
	if err != nil {
		panic(http.ErrAbortHandler)
	}
	_ = conn.Close()
}

// MalformedData is the data of the event MalformedEvent sends: not JSON.
const MalformedData = `{"choices":[{"delta":{"content":"oops"` + "\x00" + `]`

// RunFaults checks how a provider handles what a faulty network or provider
// sends: Retry-After within and over the cap, an HTML error page, an HTML
// page with status 200, a connection reset, a stall after the first chunk,
// an event that is not JSON, and answers cut at the output token limit in
// text and in a tool call's arguments.
func RunFaults(t *testing.T, f Factory) {
	t.Run("RetryAfterWithinCap", func(t *testing.T) {
		s := f(t, Scenario{Name: "429-wait", Text: "after the wait", Failure: RateLimitRetryAfter, RetryAfter: "1"})
		start := time.Now()
		resp, err := model.Generate(t.Context(), s.Model, userRequest("hi"))
		require.NoError(t, err)
		require.Equal(t, "after the wait", resp.Message.Text())
		require.Equal(t, 2, s.Requests(), "one 429, then one success")
		require.GreaterOrEqual(t, time.Since(start), 900*time.Millisecond, "the one second Retry-After asked for must be waited")
	})

	t.Run("RetryAfterOverCap", func(t *testing.T) {
		s := f(t, Scenario{Name: "429-cap", Text: "never sent", Failure: RateLimitRetryAfter, RetryAfter: "3600", MaxRetryWait: 2 * time.Second})
		_, err := model.Generate(t.Context(), s.Model, userRequest("hi"))
		require.ErrorIs(t, err, model.ErrRateLimited)
		var apiErr *model.APIError
		require.ErrorAs(t, err, &apiErr)
		require.Equal(t, http.StatusTooManyRequests, apiErr.StatusCode)
		require.Equal(t, time.Hour, apiErr.RetryAfter)
		require.Equal(t, 2*time.Second, apiErr.MaxRetryWait)
		require.Equal(t, s.Model.Provider(), apiErr.Provider)
		require.Equal(t, 1, s.Requests(), "a wait over the cap fails at once, without retrying")
		for _, want := range []string{s.Model.Provider(), "429", "1h0m0s", "2s"} {
			require.Contains(t, err.Error(), want)
		}
	})

	t.Run("HTMLErrorPage", func(t *testing.T) {
		s := f(t, Scenario{Name: "html-502", Failure: HTMLErrorPage})
		_, err := model.Generate(t.Context(), s.Model, userRequest("hi"))
		require.ErrorIs(t, err, model.ErrServer)
		var apiErr *model.APIError
		require.ErrorAs(t, err, &apiErr)
		require.Equal(t, http.StatusBadGateway, apiErr.StatusCode)
		require.Equal(t, HTMLTitle, apiErr.Message, "an HTML page is summarised by its title")
		require.NotContains(t, err.Error(), "<")
		require.Less(t, len(err.Error()), 400, "the error is bounded: %s", err)
		require.Equal(t, 3, s.Requests(), "a 502 is retried twice")
	})

	t.Run("HTMLWithSuccessStatus", func(t *testing.T) {
		s := f(t, Scenario{Name: "html-200", Failure: HTMLSuccess})
		_, err := model.Generate(t.Context(), s.Model, userRequest("hi"))
		require.ErrorIs(t, err, model.ErrMalformedResponse)
		require.NotErrorIs(t, err, model.ErrTruncated, "an HTML page is not a truncated stream")
		require.Contains(t, err.Error(), HTMLTitle)
		require.Less(t, len(err.Error()), 400, "the error is bounded: %s", err)
	})

	t.Run("ConnectionReset", func(t *testing.T) {
		s := f(t, Scenario{Name: "reset", Text: "after the reset", Failure: ResetOnce})
		resp, err := model.Generate(t.Context(), s.Model, userRequest("hi"))
		require.NoError(t, err)
		require.Equal(t, "after the reset", resp.Message.Text())
		require.Equal(t, 2, s.Requests(), "a connection reset before any answer is retried")
	})

	t.Run("StallAfterFirstChunk", func(t *testing.T) {
		s := f(t, Scenario{Name: "stall", Text: "first words, then silence", Failure: Stall, IdleTimeout: 1500 * time.Millisecond})
		var got []string
		var gotErr error
		for c, err := range s.Model.Stream(t.Context(), userRequest("Talk.")) {
			if err != nil {
				gotErr = err
				break
			}
			got = append(got, c.TextDelta)
		}
		require.NotEmpty(t, got, "the first chunk arrives before the stall")
		require.ErrorIs(t, gotErr, model.ErrStalled)
		require.NotErrorIs(t, gotErr, model.ErrTruncated)
		var stall *model.StallError
		require.ErrorAs(t, gotErr, &stall)
		require.Equal(t, s.Model.Provider(), stall.Provider)
		require.Equal(t, 1500*time.Millisecond, stall.Idle)
		require.True(t, stall.Started)
		require.Contains(t, gotErr.Error(), "mid-stream")
	})

	t.Run("MalformedEvent", func(t *testing.T) {
		s := f(t, Scenario{Name: "malformed", Text: "an answer with a broken event", Failure: MalformedEvent})
		_, err := model.Generate(t.Context(), s.Model, userRequest("hi"))
		require.ErrorIs(t, err, model.ErrMalformedResponse)
		require.NotErrorIs(t, err, model.ErrTruncated, "the connection did not end: this is not a truncation")
		require.NotContains(t, err.Error(), "oops", "the event's content is not echoed")
		require.Less(t, len(err.Error()), 400, "the error is bounded: %s", err)
	})

	t.Run("MaxTokens", func(t *testing.T) {
		s := f(t, Scenario{Name: "length", Text: "a long answer that the token limit cuts in half", Failure: MaxTokens})
		var last model.Chunk
		var a model.Assembler
		for c, err := range s.Model.Stream(t.Context(), userRequest("Talk.")) {
			require.NoError(t, err)
			a.Add(c)
			last = c
		}
		require.Equal(t, model.FinishLength, last.FinishReason, "the final chunk says the answer was cut")
		resp := a.Response()
		require.NotEmpty(t, resp.Message.Text())
		require.ErrorIs(t, resp.FinishReason.Err(), model.ErrOutputLimit)

		resp, err := model.Generate(t.Context(), s.Model, userRequest("Talk."))
		require.NoError(t, err, "a cut text answer is returned, marked by its finish reason")
		require.Equal(t, model.FinishLength, resp.FinishReason)
	})

	t.Run("MaxTokensInToolCall", func(t *testing.T) {
		call := model.ToolCall{ID: "call_cut", Name: "get_weather", Arguments: []byte(`{"city":"San Francisco, California"}`)}
		s := f(t, Scenario{Name: "length-tool", ToolCalls: []model.ToolCall{call}, Failure: MaxTokensInToolCall})
		req := userRequest("Weather?")
		req.Tools = []model.Tool{weatherTool()}
		_, err := model.Generate(t.Context(), s.Model, req)
		require.ErrorIs(t, err, model.ErrOutputLimit)
		var cut *model.CutToolCallError
		require.True(t, errors.As(err, &cut))
		require.Equal(t, "get_weather", cut.Name)
		require.Contains(t, err.Error(), "MaxOutputTokens")
	})
}

// WriteTransportFault answers the faults that look the same in every wire
// format (HTMLErrorPage, HTMLSuccess, and ResetOnce on the first request,
// i being the request's index from 0) and reports whether it answered.
func WriteTransportFault(w http.ResponseWriter, s Scenario, i int) bool {
	switch {
	case s.Failure == HTMLErrorPage:
		WriteHTMLPage(w, http.StatusBadGateway)
	case s.Failure == HTMLSuccess:
		WriteHTMLPage(w, http.StatusOK)
	case s.Failure == ResetOnce && i == 0:
		Reset(w)
	default:
		return false
	}
	return true
}

// CutCall returns c with its arguments cut in half, as a provider streams
// a call the output limit cut.
func CutCall(c model.ToolCall) model.ToolCall {
	c.Arguments = c.Arguments[:len(c.Arguments)/2]
	return c
}
