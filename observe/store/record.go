package store

import (
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"
)

// Record is one ended span as loom's own tracer (observe.NewTracerProvider)
// keeps it: the ids, times, status, attributes and events the store needs,
// with no OpenTelemetry SDK span behind it.
type Record struct {
	SpanID   trace.SpanID
	ParentID trace.SpanID
	// RemoteParent marks a span whose parent lives in another process.
	RemoteParent  bool
	Name          string
	Kind          trace.SpanKind
	Start, End    time.Time
	Status        codes.Code
	StatusMessage string
	// Attributes in the order they were set; a later duplicate key wins.
	Attributes []attribute.KeyValue
	Events     []RecordEvent
	// Scope is the instrumentation scope name.
	Scope string
}

// RecordEvent is a timestamped annotation of a [Record], such as the
// "exception" event of a recorded error.
type RecordEvent struct {
	Name       string
	Time       time.Time
	Attributes []attribute.KeyValue
}

// Part is the spans of one trace that one process recorded under one local
// root span (a span with no parent, or whose parent is remote), written by
// [Store.WriteParts] as one row. Spans of the part that end after its root
// come as parts of their own.
type Part struct {
	TraceID trace.TraceID
	// Spans in the order they ended; the last is usually the local root.
	// The store only reads them.
	Spans []*Record
}

// key is the part's identity within its trace: the id of the span that
// ended last, so that writing the same part again is recognised.
func (p *Part) key() string {
	if len(p.Spans) == 0 {
		return ""
	}
	return p.Spans[len(p.Spans)-1].SpanID.String()
}
