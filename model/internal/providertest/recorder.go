package providertest

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"
)

// Config tells a [Recorder] the provider's endpoint, its error format and
// its answers.
type Config struct {
	// Route reports whether r is the provider's streaming endpoint.
	Route func(r *http.Request) bool
	// Reject writes an error in the provider's format: status 404 for a
	// request off the route, 400 for a body that cannot be read or is not
	// JSON, with a message saying which.
	Reject func(w http.ResponseWriter, status int, msg string)
	// Answer writes the response to the i-th request (from 0).
	Answer func(w http.ResponseWriter, r *http.Request, i int)
}

// Recorder is an httptest server that counts the requests it receives,
// records the JSON body and a copy of each accepted one, and answers as
// Config.Answer says. It is closed when the test ends.
type Recorder struct {
	t      testing.TB
	srv    *httptest.Server
	cfg    Config
	n      atomic.Int32
	mu     sync.Mutex
	bodies []map[string]any
	reqs   []*http.Request
}

// NewRecorder starts a recording server.
func NewRecorder(t testing.TB, cfg Config) *Recorder {
	f := &Recorder{t: t, cfg: cfg}
	f.srv = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.srv.Close)
	return f
}

func (f *Recorder) serve(w http.ResponseWriter, r *http.Request) {
	i := int(f.n.Add(1)) - 1
	if !f.cfg.Route(r) {
		f.cfg.Reject(w, http.StatusNotFound, fmt.Sprintf("unexpected %s %s", r.Method, r.URL))
		return
	}
	raw, err := io.ReadAll(r.Body)
	if err != nil {
		f.cfg.Reject(w, http.StatusBadRequest, err.Error())
		return
	}
	var body map[string]any
	if err := json.Unmarshal(raw, &body); err != nil {
		f.cfg.Reject(w, http.StatusBadRequest, "body is not JSON: "+err.Error())
		return
	}
	f.mu.Lock()
	f.bodies = append(f.bodies, body)
	f.reqs = append(f.reqs, r.Clone(r.Context()))
	f.mu.Unlock()
	f.cfg.Answer(w, r, i)
}

// URL returns the server's base URL, with no trailing slash.
func (f *Recorder) URL() string { return f.srv.URL }

// Requests returns the number of requests received, rejected ones included.
func (f *Recorder) Requests() int { return int(f.n.Load()) }

// Body returns the JSON body of the i-th accepted request.
func (f *Recorder) Body(i int) map[string]any {
	f.mu.Lock()
	defer f.mu.Unlock()
	require.Less(f.t, i, len(f.bodies), "request %d was not received", i)
	return f.bodies[i]
}

// Request returns a copy of the i-th accepted request.
func (f *Recorder) Request(i int) *http.Request {
	f.mu.Lock()
	defer f.mu.Unlock()
	require.Less(f.t, i, len(f.reqs), "request %d was not received", i)
	return f.reqs[i]
}

// Header returns the headers of the i-th accepted request.
func (f *Recorder) Header(i int) http.Header { return f.Request(i).Header }
