package provider

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"mime"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/loomwork/loom/model"
)

// maxErrorBody is how much of an error body is read, for the summary and
// the DEBUG log.
const maxErrorBody = 64 << 10

// Transport is the one retrying, watching http.RoundTripper every provider
// sends its calls through. It
//   - retries connection errors and HTTP 408, 409, 429 and 5xx up to
//     MaxRetries times, waiting what Retry-After or retry-after-ms asks when
//     it is within MaxRetryWait and a jittered backoff otherwise;
//   - fails at once, without waiting, when the wait asked is over the cap;
//   - turns every error status into a *model.APIError with a bounded
//     summary of the body, logging the full body (key redacted) at DEBUG;
//   - rejects an HTML page sent with a success status as
//     model.ErrMalformedResponse;
//   - fails a call whose response sends nothing for IdleTimeout, before the
//     headers or between reads of the body, with a *model.StallError.
type Transport struct {
	base     http.RoundTripper
	provider string
	secret   string
	p        Policy
}

// NewTransport returns the transport for a provider's calls over base (nil:
// http.DefaultTransport). secret, the API key, is redacted from what it
// reports. p must have passed [Policy.Validate].
func NewTransport(base http.RoundTripper, providerID, secret string, p Policy) *Transport {
	if base == nil {
		base = http.DefaultTransport
	}
	return &Transport{base: base, provider: providerID, secret: secret, p: p.withDefaults()}
}

// Client returns a copy of c (nil: a default client) whose transport is a
// [Transport] over c's.
func Client(c *http.Client, providerID, secret string, p Policy) *http.Client {
	var out http.Client
	if c != nil {
		out = *c
	}
	out.Transport = NewTransport(out.Transport, providerID, secret, p)
	return &out
}

// RoundTrip sends req, retrying as the policy says.
func (t *Transport) RoundTrip(req *http.Request) (*http.Response, error) {
	ctx := req.Context()
	if req.Body != nil && req.Body != http.NoBody && req.GetBody == nil {
		// Keep the body so a retry can send it again.
		b, err := io.ReadAll(req.Body)
		_ = req.Body.Close()
		if err != nil {
			return nil, err
		}
		req = req.Clone(ctx)
		req.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(b)), nil }
		req.Body, _ = req.GetBody()
	}
	for attempt := 1; ; attempt++ {
		resp, err := t.attempt(req, attempt)
		var retry *retryAfterErr
		if !errors.As(err, &retry) {
			return resp, err
		}
		if werr := sleep(ctx, retry.wait); werr != nil {
			return nil, werr
		}
	}
}

// retryAfterErr asks RoundTrip to send the request again after wait.
type retryAfterErr struct{ wait time.Duration }

func (e *retryAfterErr) Error() string { return "retry after " + e.wait.String() }

// attempt sends req once (attempt counts from 1). It returns a
// *retryAfterErr when the request is to be sent again.
func (t *Transport) attempt(req *http.Request, attempt int) (*http.Response, error) {
	ctx, cancel := context.WithCancel(req.Context())
	w := newWatchdog(t.p.IdleTimeout, cancel)
	r := req.Clone(ctx)
	if attempt > 1 && req.GetBody != nil {
		body, err := req.GetBody()
		if err != nil {
			w.stop()
			return nil, err
		}
		r.Body = body
	}
	resp, err := t.base.RoundTrip(r)
	if err != nil {
		w.stop()
		if w.fired.Load() {
			return nil, &model.StallError{Provider: t.provider, Idle: t.p.IdleTimeout}
		}
		if req.Context().Err() != nil || attempt > *t.p.MaxRetries {
			return nil, err
		}
		return nil, &retryAfterErr{backoff(attempt-1, t.p.Backoff, t.p.MaxBackoff)}
	}
	if resp.StatusCode < 400 {
		if isHTML(resp.Header) {
			defer w.stop()
			return nil, t.htmlPage(ctx, resp)
		}
		w.reset()
		resp.Body = &watchedBody{rc: resp.Body, w: w, provider: t.provider}
		return resp, nil
	}
	defer w.stop()
	body := t.readError(ctx, resp)
	apiErr := &model.APIError{Provider: t.provider, StatusCode: resp.StatusCode, Message: Summarize(body, t.secret), Code: ErrorCode(body), Attempts: attempt}
	wait, asked := retryAfter(resp.Header, time.Now())
	if asked {
		// Kept on the error too, so a caller that owns retries (a durable
		// engine with the provider's retries off) can honour it.
		apiErr.RetryAfter, apiErr.MaxRetryWait = wait, t.p.MaxRetryWait
	}
	if !retryable(resp.StatusCode) || attempt > *t.p.MaxRetries {
		return nil, apiErr
	}
	if !asked {
		return nil, &retryAfterErr{backoff(attempt-1, t.p.Backoff, t.p.MaxBackoff)}
	}
	if wait > t.p.MaxRetryWait {
		return nil, apiErr
	}
	return nil, &retryAfterErr{wait}
}

// readError reads and closes an error response's body, logging it in full
// (bounded, key redacted) at DEBUG.
func (t *Transport) readError(ctx context.Context, resp *http.Response) []byte {
	body, _ := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody))
	_ = resp.Body.Close()
	slog.DebugContext(ctx, "provider error body", "provider", t.provider, "status", resp.StatusCode, "body", Redact(string(body), t.secret))
	return body
}

// htmlPage returns the error for an HTML page sent with a success status,
// where the provider's API sends an event stream or JSON.
func (t *Transport) htmlPage(ctx context.Context, resp *http.Response) error {
	body := t.readError(ctx, resp)
	return fmt.Errorf("%s: %w: HTTP %d with an HTML page instead of the API's reply (a proxy or gateway answered?): %s",
		t.provider, model.ErrMalformedResponse, resp.StatusCode, Summarize(body, t.secret))
}

func isHTML(h http.Header) bool {
	mt, _, _ := mime.ParseMediaType(h.Get("Content-Type"))
	return mt == "text/html" || mt == "application/xhtml+xml"
}

func sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// watchdog cancels one attempt when it has been idle for too long.
type watchdog struct {
	idle   time.Duration
	timer  *time.Timer
	cancel context.CancelFunc
	fired  atomic.Bool
	done   atomic.Bool
	once   sync.Once
}

func newWatchdog(idle time.Duration, cancel context.CancelFunc) *watchdog {
	w := &watchdog{idle: idle, cancel: cancel}
	w.timer = time.AfterFunc(idle, func() {
		w.fired.Store(true)
		cancel()
	})
	return w
}

// reset restarts the idle clock, unless the attempt is over.
func (w *watchdog) reset() {
	if !w.done.Load() {
		w.timer.Reset(w.idle)
	}
}

// stop stops the clock and releases the attempt's context.
func (w *watchdog) stop() {
	w.once.Do(func() {
		w.done.Store(true)
		w.timer.Stop()
		w.cancel()
	})
}

// watchedBody restarts the watchdog on every read that brings data, and
// reports a read cut by the watchdog as a *model.StallError.
type watchedBody struct {
	rc       io.ReadCloser
	w        *watchdog
	provider string
}

func (b *watchedBody) Read(p []byte) (int, error) {
	n, err := b.rc.Read(p)
	if b.w.fired.Load() {
		return n, &model.StallError{Provider: b.provider, Idle: b.w.idle, Started: true}
	}
	if n > 0 {
		b.w.reset()
	}
	return n, err
}

func (b *watchedBody) Close() error {
	err := b.rc.Close()
	b.w.stop()
	return err
}
