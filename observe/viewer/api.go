package viewer

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"strconv"

	"github.com/loomwork/loom/internal/buildinfo"
	"github.com/loomwork/loom/internal/localweb"
	"github.com/loomwork/loom/observe/store"
)

// HandlerConfig configures [NewHandler]; the zero value is the default.
type HandlerConfig struct {
	// Logger logs request errors; nil means slog.Default().
	Logger *slog.Logger
	// AllowedHosts are names the Host header may carry besides the
	// loopback names always accepted (localhost, 127.0.0.1, ::1). Set it
	// when serving the viewer under another name on purpose.
	AllowedHosts []string
}

type handler struct {
	store *store.Store
	log   *slog.Logger
	hosts []string
	mux   http.Handler
}

// NewHandler returns the viewer: its pages and its JSON API (see the
// package documentation) over s. It refuses requests whose Host header is
// not a loopback name, so a web page cannot read your traces through DNS
// rebinding, and requests another origin's page sends; it is the guard the
// playground uses too.
func NewHandler(s *store.Store, cfg HandlerConfig) http.Handler {
	h := &handler{store: s, log: cfg.Logger, hosts: cfg.AllowedHosts}
	if h.log == nil {
		h.log = slog.Default()
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /api/traces", h.traces)
	mux.HandleFunc("GET /api/traces/{id}", h.trace)
	mux.HandleFunc("GET /api/agents", h.agents)
	mux.HandleFunc("GET /api/stats", h.stats)
	mux.HandleFunc("GET /api/info", h.info)
	mux.HandleFunc("GET /api/", func(w http.ResponseWriter, r *http.Request) {
		writeError(w, http.StatusNotFound, "no such API: see GET /api/traces, /api/traces/{id}, /api/agents, /api/stats, /api/info")
	})
	mux.Handle("GET /", uiHandler())
	h.mux = localweb.Guard(mux, localweb.Config{Hosts: h.hosts, OpenHint: "open the viewer at http://127.0.0.1 or http://localhost"})
	return h
}

func (h *handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Security-Policy", "default-src 'self'; img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'")
	h.mux.ServeHTTP(w, r)
}

// apiSpan is a span as the API returns it: times also as milliseconds
// from the trace's start, which the timeline draws with.
type apiSpan struct {
	store.Span
	OffsetMS   float64 `json:"offset_ms"`
	DurationMS float64 `json:"duration_ms"`
}

type traceResponse struct {
	Summary store.TraceSummary `json:"summary"`
	Spans   []apiSpan          `json:"spans"`
	// Parts are the traces of the same run when it went on in other
	// processes (store.TraceDetail.Parts).
	Parts []store.TraceSummary `json:"parts,omitempty"`
}

func (h *handler) traces(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	query := store.Query{Status: q.Get("status"), Agent: q.Get("agent"), Before: q.Get("before")}
	if v := q.Get("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			writeError(w, http.StatusBadRequest, "limit "+strconv.Quote(v)+" is not a positive number")
			return
		}
		query.Limit = n
	}
	if v := q.Get("since"); v != "" {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n < 0 {
			writeError(w, http.StatusBadRequest, "since "+strconv.Quote(v)+" is not a sequence number: take it from a response's seq")
			return
		}
		query.Since = n
	}
	page, err := h.store.Traces(r.Context(), query)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, page)
}

func (h *handler) trace(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	if !isHexID(id) {
		writeError(w, http.StatusBadRequest, "trace id "+strconv.Quote(id)+" is not 32 hex digits")
		return
	}
	d, err := h.store.Trace(r.Context(), id)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	resp := traceResponse{Summary: d.Summary, Spans: make([]apiSpan, len(d.Spans)), Parts: d.Parts}
	for i, sp := range d.Spans {
		resp.Spans[i] = apiSpan{
			Span:       sp,
			OffsetMS:   float64(sp.Start.Sub(d.Summary.Start).Microseconds()) / 1e3,
			DurationMS: float64(sp.Duration().Microseconds()) / 1e3,
		}
	}
	writeJSON(w, http.StatusOK, resp)
}

func (h *handler) agents(w http.ResponseWriter, r *http.Request) {
	agents, err := h.store.Agents(r.Context())
	if err != nil {
		h.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"agents": agents})
}

func (h *handler) stats(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	st, err := h.store.Stats(r.Context(), store.Query{Status: q.Get("status"), Agent: q.Get("agent")})
	if err != nil {
		h.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, st)
}

func (h *handler) info(w http.ResponseWriter, _ *http.Request) {
	writeJSON(w, http.StatusOK, map[string]any{
		"db":             h.store.Path(),
		"schema_version": store.SchemaVersion,
		"version":        buildinfo.Version(),
	})
}

func (h *handler) fail(w http.ResponseWriter, r *http.Request, err error) {
	switch {
	case errors.Is(err, store.ErrNotFound):
		writeError(w, http.StatusNotFound, err.Error())
	case errors.Is(err, store.ErrBadQuery):
		writeError(w, http.StatusBadRequest, err.Error())
	case errors.Is(err, context.Canceled):
		// The client went away.
	default:
		h.log.ErrorContext(r.Context(), "viewer: request failed", "path", r.URL.Path, "error", err)
		writeError(w, http.StatusInternalServerError, err.Error())
	}
}

func isHexID(s string) bool {
	if len(s) != 32 {
		return false
	}
	for _, c := range s {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
			return false
		}
	}
	return true
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v) // the client may be gone; nothing to do
}

func writeError(w http.ResponseWriter, status int, msg string) {
	writeJSON(w, status, map[string]string{"error": msg})
}
