package store

import (
	"context"
	"sync"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
)

// Exporter is an OpenTelemetry span exporter that writes to a [Store]. Use
// it under a batch span processor (observe.BatchProcessor or
// [sdktrace.NewBatchSpanProcessor]); each ExportSpans call is one
// transaction.
type Exporter struct {
	store *Store
	owns  bool

	mu      sync.Mutex // guards stopped and buf
	stopped bool
	buf     []byte // scratch for encoding attributes
}

var _ sdktrace.SpanExporter = (*Exporter)(nil)

// NewExporter returns an exporter writing to s. Shutting the exporter down
// leaves s open; the caller closes it.
func NewExporter(s *Store) *Exporter { return &Exporter{store: s} }

// OpenExporter opens the store cfg names (an empty Path for
// [DefaultPath]) and returns an exporter that owns it: Shutdown closes the
// store.
func OpenExporter(ctx context.Context, cfg Config) (*Exporter, error) {
	s, err := Open(ctx, cfg)
	if err != nil {
		return nil, err
	}
	return &Exporter{store: s, owns: true}, nil
}

// Store returns the store the exporter writes to.
func (e *Exporter) Store() *Store { return e.store }

// ExportSpans writes spans in one transaction. After Shutdown it returns
// [ErrClosed].
func (e *Exporter) ExportSpans(ctx context.Context, spans []sdktrace.ReadOnlySpan) error {
	if len(spans) == 0 {
		return nil
	}
	e.mu.Lock()
	if e.stopped {
		e.mu.Unlock()
		return ErrClosed
	}
	rows := make([]row, len(spans))
	for i, s := range spans {
		rows[i], e.buf = rowFromReadOnly(s, e.buf)
	}
	if cap(e.buf) > 1<<20 {
		e.buf = nil // do not keep a huge buffer after one huge span
	}
	e.mu.Unlock()
	return e.store.writeRows(ctx, rows)
}

// Shutdown stops the exporter; later exports fail with [ErrClosed]. It
// closes the store when the exporter opened it.
func (e *Exporter) Shutdown(context.Context) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.stopped {
		return nil
	}
	e.stopped = true
	if e.owns {
		return e.store.Close()
	}
	return nil
}
