package logx

import (
	"context"
	"log/slog"

	"go.opentelemetry.io/otel/trace"
)

// Keys of the attributes [Handler] adds.
const (
	TraceIDKey = "trace_id"
	SpanIDKey  = "span_id"
)

// Handler wraps a slog.Handler and adds trace_id and span_id to every
// record whose context carries a valid span context.
type Handler struct {
	inner slog.Handler
}

var _ slog.Handler = (*Handler)(nil)

// NewHandler wraps inner.
func NewHandler(inner slog.Handler) *Handler { return &Handler{inner: inner} }

// Enabled reports whether inner handles records at lvl.
func (h *Handler) Enabled(ctx context.Context, lvl slog.Level) bool { return h.inner.Enabled(ctx, lvl) }

// Handle adds the ids of ctx's span, if any, and passes r on.
func (h *Handler) Handle(ctx context.Context, r slog.Record) error {
	if ctx != nil {
		if sc := trace.SpanContextFromContext(ctx); sc.IsValid() {
			r = r.Clone()
			r.AddAttrs(slog.String(TraceIDKey, sc.TraceID().String()), slog.String(SpanIDKey, sc.SpanID().String()))
		}
	}
	return h.inner.Handle(ctx, r)
}

// WithAttrs returns a Handler whose inner handler has attrs.
func (h *Handler) WithAttrs(attrs []slog.Attr) slog.Handler {
	return &Handler{inner: h.inner.WithAttrs(attrs)}
}

// WithGroup returns a Handler whose inner handler opens group. The ids are
// then added inside that group, as slog adds every record attribute.
func (h *Handler) WithGroup(name string) slog.Handler {
	return &Handler{inner: h.inner.WithGroup(name)}
}
