package observe

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sync"

	"github.com/loomwork/loom/observe/store"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"
	"go.opentelemetry.io/otel/trace/embedded"
)

// TracerProvider is loom's own tracer provider for the local trace store:
// its spans are small records, not OpenTelemetry SDK spans, kept with the
// other spans of their trace until the trace's local root span (one with
// no parent, or a remote one) ends; then the trace is encoded at once
// ([store.Store.EncodePart]) and goes to the store as one row, written in
// batches from a goroutine as [BatchProcessor] does. The spans that ended
// in a trace still running are written each interval, so a long run shows
// as running. Spans have the names, kinds, attributes, events
// and statuses the SDK's would, and their contexts propagate like the
// SDK's (W3C trace context, parent-based sampling: an unsampled remote
// parent makes unrecorded spans). [Setup] uses it for [ExporterStore]
// unless a sampler or span processors are configured; other exporters
// (OTLP, stdout) go through the SDK. It is safe for concurrent use.
type TracerProvider struct {
	embedded.TracerProvider
	b      *batcher[store.EncodedPart]
	encode func(*store.Part) store.EncodedPart
	attrs  sync.Pool // of *attrBuf: spans' attribute storage, reused once their part is encoded

	mu   sync.Mutex // guards live
	live map[*localTrace]struct{}
}

var _ trace.TracerProvider = (*TracerProvider)(nil)

// Defaults of the [BatchConfig] of a [TracerProvider], larger than a
// [BatchProcessor]'s: one write of many runs costs the store less per run
// (most of a run's index entries land on pages the write touches anyway).
const (
	DefaultStoreBatchSize = 4096
	DefaultStoreMaxQueue  = 4 * DefaultStoreBatchSize
)

// NewTracerProvider returns a tracer provider recording into s, batching
// writes as cfg says: spans count towards BatchSize and MaxQueue, which
// are [DefaultStoreBatchSize] and [DefaultStoreMaxQueue] when neither is
// set. Shutdown writes what is pending and closes s when owns is true.
func NewTracerProvider(s *store.Store, cfg BatchConfig, owns bool) (*TracerProvider, error) {
	if s == nil {
		return nil, fmt.Errorf("%w: the store is nil", ErrInvalidBatchConfig)
	}
	if cfg.BatchSize == 0 && cfg.MaxQueue == 0 {
		cfg.BatchSize, cfg.MaxQueue = DefaultStoreBatchSize, DefaultStoreMaxQueue
	}
	closeStore := func(context.Context) error { return nil }
	if owns {
		closeStore = func(context.Context) error { return s.Close() }
	}
	return newTracerProvider(cfg, s.EncodePart, s.WriteEncoded, closeStore)
}

// newSpoolTracerProvider returns a tracer provider recording into the
// spool sp, for a short-lived program (see [store.Spool]; [Setup] makes
// one for [Config.ShortLived]); it batches as [NewTracerProvider] does.
// Shutdown writes what is pending and closes sp.
func newSpoolTracerProvider(sp *store.Spool, cfg BatchConfig) (*TracerProvider, error) {
	if cfg.BatchSize == 0 && cfg.MaxQueue == 0 {
		cfg.BatchSize, cfg.MaxQueue = DefaultStoreBatchSize, DefaultStoreMaxQueue
	}
	return newTracerProvider(cfg, sp.EncodePart, sp.WriteEncoded, func(context.Context) error { return sp.Close() })
}

// newTracerProvider returns a tracer provider encoding parts as their
// spans end and handing them to write.
func newTracerProvider(cfg BatchConfig, encode func(*store.Part) store.EncodedPart, write func(context.Context, []store.EncodedPart) error, closeWriter func(context.Context) error) (*TracerProvider, error) {
	p := &TracerProvider{live: map[*localTrace]struct{}{}, encode: encode}
	p.attrs.New = func() any { return &attrBuf{kv: make([]attribute.KeyValue, 0, attrBufSize)} }
	b, err := newBatcher(cfg, write, closeWriter, func(p store.EncodedPart) int { return p.Spans() }, p.drainLive)
	if err != nil {
		return nil, err
	}
	p.b = b
	return p, nil
}

// drainLive hands the spans that ended in traces whose local root is
// still running to the store, so that a long run shows as running, with
// its spans so far, within an interval.
func (p *TracerProvider) drainLive() {
	p.mu.Lock()
	traces := make([]*localTrace, 0, len(p.live))
	for lt := range p.live {
		traces = append(traces, lt)
	}
	p.mu.Unlock()
	for _, lt := range traces {
		lt.mu.Lock()
		done := lt.done
		lt.done = nil
		lt.mu.Unlock()
		if len(done) > 0 {
			p.add(lt.id, done)
		}
	}
}

// Tracer returns a tracer whose spans carry the instrumentation scope name.
func (p *TracerProvider) Tracer(name string, _ ...trace.TracerOption) trace.Tracer {
	return &tracer{p: p, scope: name}
}

// Dropped returns how many spans were dropped because the write queue was
// full or the provider was shut down.
func (p *TracerProvider) Dropped() uint64 { return p.b.dropped.Load() }

// ForceFlush writes every span that ended before the call.
func (p *TracerProvider) ForceFlush(ctx context.Context) error {
	p.drainLive()
	return p.b.flush(ctx)
}

// Shutdown writes every span that ended and stops the provider's
// goroutine; spans ended afterwards are dropped. Calling it again returns
// the first call's result.
func (p *TracerProvider) Shutdown(ctx context.Context) error {
	p.drainLive()
	return p.b.shutdown(ctx)
}

// tracer starts spans of one instrumentation scope.
type tracer struct {
	embedded.Tracer
	p     *TracerProvider
	scope string
}

// Start starts a span: in its parent's trace when ctx holds a parent span
// (or a remote span context), else in a new trace.
func (t *tracer) Start(ctx context.Context, name string, opts ...trace.SpanStartOption) (context.Context, trace.Span) {
	cfg := trace.NewSpanStartConfig(opts...)
	var parent trace.SpanContext
	if !cfg.NewRoot() {
		parent = trace.SpanContextFromContext(ctx)
	}
	if parent.IsValid() && !parent.IsSampled() {
		// Parent-based sampling: an unsampled parent's children are not
		// recorded, and carry its context on.
		sp := trace.SpanFromContext(ctx)
		return trace.ContextWithSpan(ctx, sp), sp
	}
	s := &span{t: t}
	s.rec.Name, s.rec.Kind, s.rec.Scope = name, cfg.SpanKind(), t.scope
	if s.rec.Kind == trace.SpanKindUnspecified {
		s.rec.Kind = trace.SpanKindInternal
	}
	s.rec.Start = cfg.Timestamp()
	if s.rec.Start.IsZero() {
		s.rec.Start = now()
	}
	if attrs := cfg.Attributes(); len(attrs) > 0 {
		s.appendAttrs(attrs)
	}
	var traceID trace.TraceID
	if parent.IsValid() {
		traceID = parent.TraceID()
		s.rec.ParentID, s.rec.RemoteParent = parent.SpanID(), parent.IsRemote()
		if ps, ok := trace.SpanFromContext(ctx).(*span); ok && ps.t.p == t.p && !parent.IsRemote() {
			s.tr = ps.tr
		}
	} else {
		traceID = newTraceID()
	}
	if s.tr == nil {
		s.tr = &localTrace{id: traceID, root: s}
		t.p.mu.Lock()
		t.p.live[s.tr] = struct{}{}
		t.p.mu.Unlock()
	}
	s.sc = trace.NewSpanContext(trace.SpanContextConfig{
		TraceID:    traceID,
		SpanID:     newSpanID(),
		TraceFlags: trace.FlagsSampled,
		TraceState: parent.TraceState(),
	})
	return trace.ContextWithSpan(ctx, s), s
}

// localTrace gathers the ended spans of one trace in this process until
// its local root ends (or the provider's interval passes, see drainLive).
type localTrace struct {
	id   trace.TraceID
	root *span // the span that opened the trace here
	mu   sync.Mutex
	done []*span
	sent bool // the local root ended and the spans went to the store
}

// maxBuffered bounds the ended spans a trace keeps before they go to the
// store without waiting for its root or the interval.
const maxBuffered = 512

// ended records that s ended; when s is the local root, the trace's spans
// go to the store. A span that ends after its root goes on its own.
func (lt *localTrace) ended(s *span) {
	p := s.t.p
	lt.mu.Lock()
	if lt.sent {
		lt.mu.Unlock()
		p.add(lt.id, []*span{s})
		return
	}
	if lt.done == nil {
		lt.done = make([]*span, 0, 8)
	}
	lt.done = append(lt.done, s)
	root := lt.root == s
	if !root && len(lt.done) < maxBuffered {
		lt.mu.Unlock()
		return
	}
	done := lt.done
	lt.done, lt.sent = nil, root
	lt.mu.Unlock()
	if root {
		p.mu.Lock()
		delete(p.live, lt)
		p.mu.Unlock()
	}
	p.add(lt.id, done)
}

// add encodes the ended spans of a trace as one part, so that what waits
// to be written is bytes rather than span records, queues it, and reuses
// the spans' attribute buffers.
func (p *TracerProvider) add(id trace.TraceID, spans []*span) {
	recs := make([]*store.Record, len(spans))
	for i, s := range spans {
		recs[i] = &s.rec
	}
	p.b.add(p.encode(&store.Part{TraceID: id, Spans: recs}))
	p.release(spans)
}

// newTraceID and newSpanID return random non-zero ids, as the SDK's
// default id generator does.
func newTraceID() trace.TraceID {
	var id trace.TraceID
	for !id.IsValid() {
		putUint64(id[:8], rand.Uint64())
		putUint64(id[8:], rand.Uint64())
	}
	return id
}

func newSpanID() trace.SpanID {
	var id trace.SpanID
	for !id.IsValid() {
		putUint64(id[:], rand.Uint64())
	}
	return id
}

func putUint64(b []byte, v uint64) {
	for i := range 8 {
		b[i] = byte(v >> (56 - 8*i))
	}
}
