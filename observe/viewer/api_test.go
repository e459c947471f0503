package viewer_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/loomwork/loom/observe/internal/fixture"
	"github.com/loomwork/loom/observe/store"
	"github.com/loomwork/loom/observe/viewer"
	"github.com/stretchr/testify/require"
)

// newStore opens a temporary store holding runs.
func newStore(t testing.TB, runs ...fixture.Run) *store.Store {
	t.Helper()
	s, err := store.Open(context.Background(), store.Config{Path: filepath.Join(t.TempDir(), "traces.db")})
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, s.Close()) })
	exportRuns(t, s, runs...)
	return s
}

func exportRuns(t testing.TB, s *store.Store, runs ...fixture.Run) {
	t.Helper()
	exp := store.NewExporter(s)
	for _, r := range runs {
		require.NoError(t, exp.ExportSpans(context.Background(), fixture.CoderSandbox(r).Snapshots()))
	}
}

// get fetches path from srv and decodes a JSON body into out (if non-nil).
func get(t *testing.T, srv *httptest.Server, path string, out any) *http.Response {
	t.Helper()
	res, err := srv.Client().Get(srv.URL + path)
	require.NoError(t, err)
	defer res.Body.Close()
	body, err := io.ReadAll(res.Body)
	require.NoError(t, err)
	if out != nil {
		require.NoError(t, json.Unmarshal(body, out), "body: %s", body)
	}
	return res
}

type apiError struct {
	Error string `json:"error"`
}

type tracePage struct {
	Traces []store.TraceSummary `json:"traces"`
	Next   string               `json:"next"`
	Seq    int64                `json:"seq"`
}

type traceResp struct {
	Summary store.TraceSummary `json:"summary"`
	Spans   []struct {
		store.Span
		OffsetMS   float64 `json:"offset_ms"`
		DurationMS float64 `json:"duration_ms"`
	} `json:"spans"`
}

func TestAPITraces(t *testing.T) {
	base := time.Now().Add(-time.Hour)
	s := newStore(t,
		fixture.Run{Seed: 1, Start: base},
		fixture.Run{Seed: 2, Start: base.Add(time.Minute), Agent: "analyst"},
		fixture.Run{Seed: 3, Start: base.Add(2 * time.Minute), Outcome: fixture.Failed},
	)
	srv := httptest.NewServer(viewer.NewHandler(s, viewer.HandlerConfig{}))
	defer srv.Close()

	tests := []struct {
		query string
		want  []uint64
		next  bool
	}{
		{"", []uint64{3, 2, 1}, false},
		{"?status=error", []uint64{3}, false},
		{"?agent=analyst", []uint64{2}, false},
		{"?agent=coder&status=ok", []uint64{1}, false},
		{"?limit=2", []uint64{3, 2}, true},
	}
	for _, tc := range tests {
		t.Run(tc.query, func(t *testing.T) {
			var page tracePage
			res := get(t, srv, "/api/traces"+tc.query, &page)
			require.Equal(t, http.StatusOK, res.StatusCode)
			require.Equal(t, "application/json; charset=utf-8", res.Header.Get("Content-Type"))
			var got []string
			for _, tr := range page.Traces {
				got = append(got, tr.TraceID)
			}
			var want []string
			for _, seed := range tc.want {
				want = append(want, fixture.IDs(seed).String())
			}
			require.Equal(t, want, got)
			require.Equal(t, tc.next, page.Next != "")
			require.Equal(t, int64(3), page.Seq)
		})
	}

	// The next cursor leads to the rest.
	var first, second tracePage
	get(t, srv, "/api/traces?limit=2", &first)
	get(t, srv, "/api/traces?limit=2&before="+first.Next, &second)
	require.Len(t, second.Traces, 1)
	require.Equal(t, fixture.IDs(1).String(), second.Traces[0].TraceID)

	// Polling with since returns what changed.
	var none tracePage
	get(t, srv, "/api/traces?since=3", &none)
	require.Empty(t, none.Traces)
	exportRuns(t, s, fixture.Run{Seed: 4})
	var changed tracePage
	get(t, srv, "/api/traces?since=3", &changed)
	require.Len(t, changed.Traces, 1)
	require.Equal(t, fixture.IDs(4).String(), changed.Traces[0].TraceID)
	require.Equal(t, int64(4), changed.Seq)

	// The summary fields the list shows.
	row := changed.Traces[0]
	require.Equal(t, "coder", row.Agent)
	require.Equal(t, "10! = ?", row.Input)
	require.Equal(t, "ok", row.Status)
	require.Equal(t, int64(354), row.TotalTokens)
	require.Equal(t, 1412.0, row.DurationMS)
	require.Positive(t, row.CostUSD)
}

func TestAPIBadRequests(t *testing.T) {
	srv := httptest.NewServer(viewer.NewHandler(newStore(t), viewer.HandlerConfig{}))
	defer srv.Close()
	tests := []struct {
		path   string
		status int
		msg    string
	}{
		{"/api/traces?status=done", 400, "status"},
		{"/api/traces?limit=x", 400, "limit"},
		{"/api/traces?limit=0", 400, "limit"},
		{"/api/traces?since=-1", 400, "since"},
		{"/api/traces?before=zzz", 400, "cursor"},
		{"/api/traces/nothex", 400, "32 hex digits"},
		{"/api/traces/0123456789abcdef0123456789abcdef", 404, "not found"},
		{"/api/nope", 404, "no such API"},
	}
	for _, tc := range tests {
		t.Run(tc.path, func(t *testing.T) {
			var e apiError
			res := get(t, srv, tc.path, &e)
			require.Equal(t, tc.status, res.StatusCode)
			require.Contains(t, e.Error, tc.msg)
		})
	}
}

func TestAPITraceDetail(t *testing.T) {
	start := time.Now().Add(-time.Hour).Truncate(time.Millisecond)
	s := newStore(t, fixture.Run{Seed: 5, Start: start, Outcome: fixture.SandboxError})
	srv := httptest.NewServer(viewer.NewHandler(s, viewer.HandlerConfig{}))
	defer srv.Close()

	var d traceResp
	res := get(t, srv, "/api/traces/"+strings.ToUpper(fixture.IDs(5).String()), &d)
	require.Equal(t, http.StatusOK, res.StatusCode)
	require.Equal(t, "coder", d.Summary.Agent)
	require.Len(t, d.Spans, 6)
	byName := map[string]int{}
	for i, sp := range d.Spans {
		byName[sp.Name] = i
	}
	root := d.Spans[byName["invoke_agent coder"]]
	require.Zero(t, root.OffsetMS)
	require.Equal(t, 1412.0, root.DurationMS)
	sb := d.Spans[byName["sandbox.run"]]
	require.Equal(t, 823.0, sb.OffsetMS)
	require.InDelta(t, 3.7, sb.DurationMS, 1e-9)
	require.Equal(t, "error", sb.Status)
	require.Equal(t, "exception", sb.Attributes["loom.sandbox.error_kind"])
	require.Equal(t, fixture.Code, sb.Attributes["loom.sandbox.code"])
	require.Len(t, sb.Events, 1)
	require.Equal(t, "*sandbox.Error", sb.Events[0].Attributes["exception.type"])
	tool := d.Spans[byName["execute_tool evaluateJs"]]
	require.Equal(t, true, tool.Attributes["loom.tool.is_error"])
	require.Equal(t, root.SpanID, tool.ParentSpanID)
}

func TestAPIAgentsAndInfo(t *testing.T) {
	s := newStore(t, fixture.Run{Seed: 1}, fixture.Run{Seed: 2, Agent: "analyst"}, fixture.Run{Seed: 3})
	srv := httptest.NewServer(viewer.NewHandler(s, viewer.HandlerConfig{}))
	defer srv.Close()

	var agents struct {
		Agents []store.AgentCount `json:"agents"`
	}
	get(t, srv, "/api/agents", &agents)
	require.Equal(t, []store.AgentCount{{Name: "analyst", Traces: 1}, {Name: "coder", Traces: 2}}, agents.Agents)

	var st store.Stats
	get(t, srv, "/api/stats?agent=coder", &st)
	require.Equal(t, int64(2), st.Traces)
	require.Equal(t, int64(2), st.OK)
	require.Equal(t, int64(600), st.InputTokens)
	var bad apiError
	res := get(t, srv, "/api/stats?status=nope", &bad)
	require.Equal(t, http.StatusBadRequest, res.StatusCode)

	var info struct {
		DB      string `json:"db"`
		Schema  int    `json:"schema_version"`
		Version string `json:"version"`
	}
	get(t, srv, "/api/info", &info)
	require.Equal(t, s.Path(), info.DB)
	require.Equal(t, store.SchemaVersion, info.Schema)
	require.NotEmpty(t, info.Version)
}

func TestUIIsEmbeddedAndSelfContained(t *testing.T) {
	srv := httptest.NewServer(viewer.NewHandler(newStore(t), viewer.HandlerConfig{}))
	defer srv.Close()
	tests := []struct {
		path, contentType, contains string
	}{
		{"/", "text/html", `<script src="app.js" defer></script>`},
		{"/app.js", "text/javascript", "/api/traces"},
		{"/app.css", "text/css", ".wf-bar"},
		{"/favicon.svg", "image/svg+xml", "<svg"},
	}
	for _, tc := range tests {
		t.Run(tc.path, func(t *testing.T) {
			res, err := srv.Client().Get(srv.URL + tc.path)
			require.NoError(t, err)
			body, err := io.ReadAll(res.Body)
			require.NoError(t, err)
			require.NoError(t, res.Body.Close())
			require.Equal(t, http.StatusOK, res.StatusCode)
			require.Contains(t, res.Header.Get("Content-Type"), tc.contentType)
			require.Contains(t, string(body), tc.contains)
			require.Contains(t, res.Header.Get("Content-Security-Policy"), "default-src 'self'")
			// Nothing is loaded from elsewhere.
			require.NotRegexp(t, `(?i)(src|href)\s*=\s*["']?(https?:)?//`, string(body))
			require.NotContains(t, string(body), "@import")
		})
	}
}

func TestHostCheck(t *testing.T) {
	h := viewer.NewHandler(newStore(t), viewer.HandlerConfig{AllowedHosts: []string{"traces.internal"}})
	tests := []struct {
		method, host, origin, contentType string
		status                            int
	}{
		{"GET", "127.0.0.1:7893", "", "", 200},
		{"GET", "localhost:7893", "", "", 200},
		{"GET", "[::1]:7893", "", "", 200},
		{"GET", "LOCALHOST", "", "", 200},
		{"GET", "traces.internal:80", "", "", 200},
		{"GET", "evil.example:7893", "", "", 403},
		{"GET", "127.0.0.1.evil.example", "", "", 403},
		{"GET", "127.0.0.1:7893", "http://127.0.0.1:7893", "", 200},
		{"GET", "127.0.0.1:7893", "https://evil.example", "", 403},
		{"GET", "127.0.0.1:7893", "null", "", 403},
		// A cross-origin form post is refused before any route sees it.
		{"POST", "127.0.0.1:7893", "", "application/x-www-form-urlencoded", 415},
		{"POST", "127.0.0.1:7893", "https://evil.example", "application/x-www-form-urlencoded", 403},
	}
	for _, tc := range tests {
		t.Run(tc.method+" "+tc.host+" "+tc.origin+" "+tc.contentType, func(t *testing.T) {
			req := httptest.NewRequest(tc.method, "/api/info", strings.NewReader("a=b"))
			req.Host = tc.host
			if tc.origin != "" {
				req.Header.Set("Origin", tc.origin)
			}
			if tc.contentType != "" {
				req.Header.Set("Content-Type", tc.contentType)
			}
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, req)
			require.Equal(t, tc.status, rec.Code, rec.Body.String())
		})
	}
}
