package gemini

import (
	"context"
	"errors"
	"io"
	"net/http"
	"sync"
)

// The genai SDK logs every stream that ends with a read error ("Error
// context canceled", "Error unexpected EOF") through the standard logger
// before yielding the error. loom reports those endings itself (as
// cancellation or model.ErrTruncated), so its transport hands genai a clean
// end of body instead and keeps the real error for the stream to report.

// bodyErrKey carries a *bodyErr in a request's context.
type bodyErrKey struct{}

// bodyErr records the read error of one call's response body.
type bodyErr struct {
	mu  sync.Mutex
	err error
}

func (b *bodyErr) set(err error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.err == nil {
		b.err = err
	}
}

func (b *bodyErr) get() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.err
}

func withBodyErr(ctx context.Context) (context.Context, *bodyErr) {
	b := &bodyErr{}
	return context.WithValue(ctx, bodyErrKey{}, b), b
}

// quietTransport wraps the response bodies of requests made with a
// *bodyErr in their context.
type quietTransport struct{ base http.RoundTripper }

func (t quietTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := t.base.RoundTrip(req)
	if err != nil {
		return resp, err
	}
	if b, ok := req.Context().Value(bodyErrKey{}).(*bodyErr); ok && resp.StatusCode < 300 {
		resp.Body = quietBody{ReadCloser: resp.Body, rec: b}
	}
	return resp, nil
}

type quietBody struct {
	io.ReadCloser
	rec *bodyErr
}

func (q quietBody) Read(p []byte) (int, error) {
	n, err := q.ReadCloser.Read(p)
	if err != nil && !errors.Is(err, io.EOF) {
		q.rec.set(err)
		return n, io.EOF
	}
	return n, err
}

// quietClient returns a copy of c (or of a default client) whose transport
// is wrapped.
func quietClient(c *http.Client) *http.Client {
	var q http.Client
	if c != nil {
		q = *c
	}
	base := q.Transport
	if base == nil {
		base = http.DefaultTransport
	}
	q.Transport = quietTransport{base: base}
	return &q
}
