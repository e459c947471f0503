package provider

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/loomwork/loom/model"
	"github.com/stretchr/testify/require"
)

func TestRetryAfter(t *testing.T) {
	now := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	cases := []struct {
		name   string
		header map[string]string
		want   time.Duration
		ok     bool
	}{
		{"seconds", map[string]string{"Retry-After": "3"}, 3 * time.Second, true},
		{"fraction", map[string]string{"Retry-After": "0.5"}, 500 * time.Millisecond, true},
		{"http date", map[string]string{"Retry-After": now.Add(90 * time.Second).Format(http.TimeFormat)}, 90 * time.Second, true},
		{"past date", map[string]string{"Retry-After": now.Add(-time.Minute).Format(http.TimeFormat)}, 0, true},
		{"ms wins", map[string]string{"Retry-After-Ms": "250", "Retry-After": "9"}, 250 * time.Millisecond, true},
		{"huge", map[string]string{"Retry-After": "1e300"}, time.Duration(1<<63 - 1), true},
		{"negative", map[string]string{"Retry-After": "-1"}, 0, false},
		{"garbage", map[string]string{"Retry-After": "soon"}, 0, false},
		{"none", nil, 0, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			h := http.Header{}
			for k, v := range c.header {
				h.Set(k, v)
			}
			got, ok := retryAfter(h, now)
			require.Equal(t, c.ok, ok)
			require.Equal(t, c.want, got)
		})
	}
}

func TestBackoffIsJitteredAndCapped(t *testing.T) {
	for retry := range 10 {
		for range 50 {
			d := backoff(retry, 100*time.Millisecond, time.Second)
			full := min(100*time.Millisecond<<retry, time.Second)
			require.GreaterOrEqual(t, d, full/2)
			require.LessOrEqual(t, d, full)
		}
	}
}

func TestSummarize(t *testing.T) {
	long := strings.Repeat("x", 500)
	cases := []struct {
		name, body, want string
	}{
		{"openai", `{"error":{"message":"Rate limit reached","type":"requests","code":"rate_limit_exceeded"}}`, "Rate limit reached"},
		{"anthropic", `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`, "Overloaded"},
		{"gemini list", `[{"error":{"code":503,"message":"The model is overloaded.","status":"UNAVAILABLE"}}]`, "The model is overloaded."},
		{"string error", `{"error":"bad gateway"}`, "bad gateway"},
		{"html", "<html><head><title>502 Bad\n Gateway</title></head><body>" + long + "</body></html>", "502 Bad Gateway"},
		{"text", "\n\n  upstream connect error  \nsecond line", "upstream connect error"},
		{"key redacted", `{"error":{"message":"bad key sk-secret-123456"}}`, "bad key [redacted]"},
		{"bounded", long, strings.Repeat("x", MaxSummary-len("…")) + "…"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := Summarize([]byte(c.body), "sk-secret-123456")
			require.Equal(t, c.want, got)
			require.LessOrEqual(t, len(got), MaxSummary)
		})
	}
	require.Equal(t, "API_KEY_INVALID", ErrorCode([]byte(`{"error":{"code":400,"message":"API key not valid.","status":"INVALID_ARGUMENT","details":[{"reason":"API_KEY_INVALID"}]}}`)))
	require.Equal(t, "invalid_api_key", ErrorCode([]byte(`{"error":{"message":"m","type":"invalid_request_error","code":"invalid_api_key"}}`)))
	require.Equal(t, "é…", Clip("ééé", 5), "cut on a rune boundary")
}

func TestPolicyValidate(t *testing.T) {
	neg := -1
	require.NoError(t, Policy{}.Validate("p"))
	for _, p := range []Policy{{MaxRetryWait: -time.Second}, {IdleTimeout: -1}, {Backoff: -1}, {MaxRetries: &neg}} {
		err := p.Validate("p")
		require.ErrorIs(t, err, model.ErrInvalidOption)
		require.ErrorContains(t, err, "must not be negative")
	}
	d := Policy{}.withDefaults()
	require.Equal(t, DefaultMaxRetries, *d.MaxRetries)
	require.Equal(t, DefaultMaxRetryWait, d.MaxRetryWait)
	require.Equal(t, DefaultIdleTimeout, d.IdleTimeout)
}

// answers serves the statuses in order (the last one repeated), recording
// how many requests arrived and the bodies they carried.
func answers(t *testing.T, h func(w http.ResponseWriter, r *http.Request, i int)) (*httptest.Server, *atomic.Int32) {
	var n atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h(w, r, int(n.Add(1))-1)
	}))
	t.Cleanup(srv.Close)
	return srv, &n
}

func post(t *testing.T, c *http.Client, url string) (*http.Response, error) {
	req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, url, strings.NewReader(`{"q":1}`))
	require.NoError(t, err)
	return c.Do(req)
}

func fast(retries int) Policy {
	return Policy{MaxRetries: &retries, Backoff: time.Millisecond, MaxBackoff: 2 * time.Millisecond}
}

func TestTransportRetriesAndResendsTheBody(t *testing.T) {
	srv, n := answers(t, func(w http.ResponseWriter, r *http.Request, i int) {
		b, _ := io.ReadAll(r.Body)
		require.Equal(t, `{"q":1}`, string(b), "every attempt sends the whole body")
		if i < 2 {
			w.Header().Set("Retry-After-Ms", "1")
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		}
		_, _ = io.WriteString(w, "ok")
	})
	resp, err := post(t, Client(nil, "p", "", fast(2)), srv.URL)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	require.Equal(t, "ok", string(b))
	require.EqualValues(t, 3, n.Load())
}

func TestTransportErrorStatuses(t *testing.T) {
	cases := []struct {
		name     string
		status   int
		retries  int
		wantReqs int32
		sentinel error
	}{
		{"400 not retried", 400, 2, 1, model.ErrInvalidRequest},
		{"401 not retried", 401, 2, 1, model.ErrAuth},
		{"500 retried", 500, 2, 3, model.ErrServer},
		{"429 retried", 429, 1, 2, model.ErrRateLimited},
		{"retries off", 503, 0, 1, model.ErrServer},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			srv, n := answers(t, func(w http.ResponseWriter, _ *http.Request, _ int) {
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(c.status)
				_, _ = io.WriteString(w, `{"error":{"message":"no, sk-secret-123456","type":"t"}}`)
			})
			_, err := post(t, Client(nil, "p", "sk-secret-123456", fast(c.retries)), srv.URL)
			require.ErrorIs(t, err, c.sentinel)
			var apiErr *model.APIError
			require.True(t, errors.As(err, &apiErr))
			require.Equal(t, c.status, apiErr.StatusCode)
			require.Equal(t, "no, [redacted]", apiErr.Message)
			require.Equal(t, int(c.wantReqs), apiErr.Attempts)
			require.Equal(t, c.wantReqs, n.Load())
		})
	}
}

func TestTransportRetryAfterOverCapFailsAtOnce(t *testing.T) {
	srv, n := answers(t, func(w http.ResponseWriter, _ *http.Request, _ int) {
		w.Header().Set("Retry-After", time.Now().Add(2*time.Hour).UTC().Format(http.TimeFormat))
		w.WriteHeader(http.StatusServiceUnavailable)
	})
	p := fast(2)
	p.MaxRetryWait = time.Minute
	_, err := post(t, Client(nil, "p", "", p), srv.URL)
	var apiErr *model.APIError
	require.True(t, errors.As(err, &apiErr))
	require.Greater(t, apiErr.RetryAfter, time.Hour)
	require.Equal(t, time.Minute, apiErr.MaxRetryWait)
	require.EqualValues(t, 1, n.Load())
	require.ErrorContains(t, err, "longer than the 1m0s cap")
}

func TestTransportCancelledDuringRetryWait(t *testing.T) {
	srv, _ := answers(t, func(w http.ResponseWriter, _ *http.Request, _ int) {
		w.Header().Set("Retry-After", "20")
		w.WriteHeader(http.StatusTooManyRequests)
	})
	ctx, cancel := context.WithTimeout(t.Context(), 50*time.Millisecond)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, srv.URL, strings.NewReader("x"))
	require.NoError(t, err)
	_, err = Client(nil, "p", "", fast(2)).Do(req)
	require.ErrorIs(t, err, context.DeadlineExceeded)
}

func TestTransportStallBeforeHeaders(t *testing.T) {
	release := make(chan struct{})
	srv, _ := answers(t, func(w http.ResponseWriter, r *http.Request, _ int) {
		select {
		case <-r.Context().Done():
		case <-release:
		}
	})
	defer close(release)
	p := fast(0)
	p.IdleTimeout = 50 * time.Millisecond
	_, err := post(t, Client(nil, "p", "", p), srv.URL)
	var stall *model.StallError
	require.True(t, errors.As(err, &stall), "got %v", err)
	require.False(t, stall.Started)
	require.ErrorContains(t, err, "waiting for the response")
}

func TestMarkerBody(t *testing.T) {
	cases := []struct {
		name   string
		reads  []string
		marker bool
	}{
		{"whole", []string{"data: {}\n\ndata: [DONE]\n\n"}, true},
		{"first line", []string{"data: [DONE]\n"}, true},
		{"split", []string{"data: {}\n\nda", "ta: [DO", "NE]\n\n"}, true},
		{"no space", []string{"data:[DONE]\n"}, true},
		{"inside text", []string{`data: {"content":"data: [DONE]"}` + "\n\n"}, false},
		{"absent", []string{"data: {}\n\n"}, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m := WatchMarker(io.NopCloser(&chunked{parts: c.reads}), "[DONE]")
			_, err := io.ReadAll(m)
			require.NoError(t, err)
			require.Equal(t, c.marker, m.Seen())
		})
	}
}

// chunked returns its parts one Read at a time.
type chunked struct{ parts []string }

func (c *chunked) Read(p []byte) (int, error) {
	if len(c.parts) == 0 {
		return 0, io.EOF
	}
	n := copy(p, c.parts[0])
	c.parts[0] = c.parts[0][n:]
	if c.parts[0] == "" {
		c.parts = c.parts[1:]
	}
	return n, nil
}

func TestStreamErrNamesMalformedEvents(t *testing.T) {
	var v struct{ Args map[string]any }
	typeErr := json.Unmarshal([]byte(`{"Args":"Paris"}`), &v)
	var w struct{}
	synErr := json.Unmarshal([]byte(`{"a":`), &w)
	for _, c := range []struct {
		err  error
		want string
	}{
		{fmt.Errorf("decoding: %w", typeErr), `field "Args" is a JSON string where an object was expected`},
		{synErr, "unexpected end of JSON input"},
	} {
		err := StreamErr(t.Context(), "p", "http://x", c.err, true, "the end")
		require.ErrorIs(t, err, model.ErrMalformedResponse)
		require.NotErrorIs(t, err, model.ErrTruncated)
		require.ErrorContains(t, err, c.want)
	}
	err := StreamErr(t.Context(), "p", "http://x", io.ErrUnexpectedEOF, true, "the end")
	require.ErrorIs(t, err, model.ErrTruncated, "a broken connection mid-stream is a truncation")
	err = StreamErr(t.Context(), "p", "http://x", io.ErrUnexpectedEOF, false, "the end")
	require.ErrorContains(t, err, "request to http://x failed")
}
