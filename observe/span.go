package observe

import (
	"reflect"
	"runtime"
	"sync"
	"time"

	"github.com/loomwork/loom/observe/store"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"
	"go.opentelemetry.io/otel/trace/embedded"
)

// span is a span of loom's own [TracerProvider]: a [store.Record] filled
// in while the span runs and handed to its local trace when it ends.
type span struct {
	embedded.Span
	t     *tracer
	tr    *localTrace
	sc    trace.SpanContext
	mu    sync.Mutex // guards rec, attrs and end
	rec   store.Record
	attrs *attrBuf // rec.Attributes' buffer, from the provider's pool
	end   bool
}

var _ trace.Span = (*span)(nil)

// now is the wall clock of span times.
func now() time.Time { return time.Now() }

// End ends the span; calls after the first do nothing.
func (s *span) End(opts ...trace.SpanEndOption) {
	at := now()
	if len(opts) > 0 {
		cfg := trace.NewSpanEndConfig(opts...)
		if ts := cfg.Timestamp(); !ts.IsZero() {
			at = ts
		}
	}
	s.mu.Lock()
	if s.end {
		s.mu.Unlock()
		return
	}
	s.end = true
	s.rec.End = at
	s.rec.SpanID = s.sc.SpanID()
	s.mu.Unlock()
	// Nothing changes the record after End, so the store reads it in
	// place.
	s.tr.ended(s)
}

// AddEvent adds an event with the options' time and attributes.
func (s *span) AddEvent(name string, opts ...trace.EventOption) {
	cfg := trace.NewEventConfig(opts...)
	s.addEvent(name, cfg.Timestamp(), cfg.Attributes())
}

func (s *span) addEvent(name string, at time.Time, attrs []attribute.KeyValue) {
	if at.IsZero() {
		at = now()
	}
	s.mu.Lock()
	if !s.end {
		s.rec.Events = append(s.rec.Events, store.RecordEvent{Name: name, Time: at, Attributes: attrs})
	}
	s.mu.Unlock()
}

// AddLink does nothing: the store keeps no links.
func (s *span) AddLink(trace.Link) {}

// IsRecording reports whether the span has not ended yet.
func (s *span) IsRecording() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return !s.end
}

// RecordError adds an "exception" event for err, as the SDK does: its type
// and message, and a stack trace when asked with trace.WithStackTrace.
func (s *span) RecordError(err error, opts ...trace.EventOption) {
	if err == nil {
		return
	}
	cfg := trace.NewEventConfig(opts...)
	attrs := make([]attribute.KeyValue, 0, len(cfg.Attributes())+3)
	attrs = append(attrs, attribute.String("exception.type", errorType(err)), attribute.String("exception.message", err.Error()))
	attrs = append(attrs, cfg.Attributes()...)
	if cfg.StackTrace() {
		attrs = append(attrs, attribute.String("exception.stacktrace", stackTrace()))
	}
	s.addEvent("exception", cfg.Timestamp(), attrs)
}

// errorType names err's type as the SDK does: package path and type name.
func errorType(err error) string {
	t := reflect.TypeOf(err)
	if t.PkgPath() == "" && t.Name() == "" {
		return t.String()
	}
	return t.PkgPath() + "." + t.Name()
}

// SpanContext returns the span's context.
func (s *span) SpanContext() trace.SpanContext { return s.sc }

// SetStatus sets the status as the SDK does: Ok is final, Error replaces
// Unset, and only Error keeps a description.
func (s *span) SetStatus(code codes.Code, description string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.end || s.rec.Status > code || (code == codes.Unset) {
		return
	}
	s.rec.Status, s.rec.StatusMessage = code, ""
	if code == codes.Error {
		s.rec.StatusMessage = description
	}
}

// SetName renames the span.
func (s *span) SetName(name string) {
	s.mu.Lock()
	if !s.end {
		s.rec.Name = name
	}
	s.mu.Unlock()
}

// SetAttributes adds attributes; a later value of a key replaces an
// earlier one when stored.
func (s *span) SetAttributes(kv ...attribute.KeyValue) {
	s.mu.Lock()
	if !s.end {
		s.appendAttrs(kv)
	}
	s.mu.Unlock()
}

// TracerProvider returns the provider the span came from.
func (s *span) TracerProvider() trace.TracerProvider { return s.t.p }

// stackTrace returns the calling goroutine's stack, as the SDK records it.
func stackTrace() string {
	buf := make([]byte, 2048)
	n := runtime.Stack(buf, false)
	return string(buf[:n])
}
