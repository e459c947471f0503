package observe

import (
	"context"
	"errors"
	"fmt"
	"time"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
)

// Defaults of [BatchConfig].
const (
	DefaultBatchSize     = 512
	DefaultMaxQueue      = 8192
	DefaultBatchInterval = time.Second
	DefaultExportTimeout = 30 * time.Second
)

// ErrInvalidBatchConfig is returned for a [BatchConfig] with a negative or
// inconsistent field.
var ErrInvalidBatchConfig = errors.New("observe: invalid batch config")

// BatchConfig configures a [BatchProcessor]. A zero field takes its default;
// a negative one is an error.
type BatchConfig struct {
	// BatchSize is how many ended spans make the processor export at once
	// rather than at the next interval, and the most spans one ExportSpans
	// call receives. Default [DefaultBatchSize], or MaxQueue when that is
	// smaller.
	BatchSize int
	// MaxQueue bounds the spans waiting to be exported (beyond the batch
	// being exported); spans ended while it is full are dropped and counted
	// by [BatchProcessor.Dropped]. At least BatchSize. Default
	// [DefaultMaxQueue].
	MaxQueue int
	// Interval is the longest a span waits before it is exported when fewer
	// than BatchSize are pending. Default [DefaultBatchInterval].
	Interval time.Duration
	// ExportTimeout bounds one background ExportSpans call. Default
	// [DefaultExportTimeout].
	ExportTimeout time.Duration
}

func (c BatchConfig) resolve() (BatchConfig, error) {
	switch {
	case c.BatchSize < 0:
		return c, fmt.Errorf("%w: BatchSize is %d; use 0 for the default (%d) or a positive size", ErrInvalidBatchConfig, c.BatchSize, DefaultBatchSize)
	case c.MaxQueue < 0:
		return c, fmt.Errorf("%w: MaxQueue is %d; use 0 for the default (%d) or a positive bound", ErrInvalidBatchConfig, c.MaxQueue, DefaultMaxQueue)
	case c.Interval < 0:
		return c, fmt.Errorf("%w: Interval is %v; use 0 for the default (%v) or a positive duration", ErrInvalidBatchConfig, c.Interval, DefaultBatchInterval)
	case c.ExportTimeout < 0:
		return c, fmt.Errorf("%w: ExportTimeout is %v; use 0 for the default (%v) or a positive duration", ErrInvalidBatchConfig, c.ExportTimeout, DefaultExportTimeout)
	}
	if c.BatchSize == 0 {
		c.BatchSize = DefaultBatchSize
		if c.MaxQueue > 0 {
			c.BatchSize = min(DefaultBatchSize, c.MaxQueue)
		}
	}
	if c.MaxQueue == 0 {
		c.MaxQueue = max(DefaultMaxQueue, c.BatchSize)
	}
	if c.MaxQueue < c.BatchSize {
		return c, fmt.Errorf("%w: MaxQueue (%d) is below BatchSize (%d); raise MaxQueue or lower BatchSize", ErrInvalidBatchConfig, c.MaxQueue, c.BatchSize)
	}
	if c.Interval == 0 {
		c.Interval = DefaultBatchInterval
	}
	if c.ExportTimeout == 0 {
		c.ExportTimeout = DefaultExportTimeout
	}
	return c, nil
}

// BatchProcessor is a span processor that hands ended spans to an exporter
// in batches, like the SDK's batch span processor, but without waking its
// goroutine for every span: an ended span is appended to a mutex-guarded
// slice, and the goroutine wakes only when BatchSize spans are pending or
// the interval has passed. Exports run one at a time, in the order spans
// ended. It is safe for concurrent use.
type BatchProcessor struct {
	b   *batcher[sdktrace.ReadOnlySpan]
	exp sdktrace.SpanExporter
}

var _ sdktrace.SpanProcessor = (*BatchProcessor)(nil)

// NewBatchProcessor returns a processor exporting to exp, with its
// goroutine started; [BatchProcessor.Shutdown] stops it, exports what is
// pending and shuts exp down.
func NewBatchProcessor(exp sdktrace.SpanExporter, cfg BatchConfig) (*BatchProcessor, error) {
	if exp == nil {
		return nil, fmt.Errorf("%w: the exporter is nil", ErrInvalidBatchConfig)
	}
	b, err := newBatcher(cfg, exp.ExportSpans, exp.Shutdown, func(sdktrace.ReadOnlySpan) int { return 1 }, nil)
	if err != nil {
		return nil, err
	}
	return &BatchProcessor{b: b, exp: exp}, nil
}

// OnStart does nothing.
func (*BatchProcessor) OnStart(context.Context, sdktrace.ReadWriteSpan) {}

// OnEnd queues a sampled span for export, or drops and counts it when the
// queue is full or the processor is shut down.
func (p *BatchProcessor) OnEnd(s sdktrace.ReadOnlySpan) {
	if !s.SpanContext().IsSampled() {
		return
	}
	p.b.add(s)
}

// Dropped returns how many spans were dropped because the queue was full
// or the processor was shut down.
func (p *BatchProcessor) Dropped() uint64 { return p.b.dropped.Load() }

// ForceFlush exports every span that ended before the call, waiting for an
// export under way to finish first. It returns the exporter's error, or
// ctx's when ctx ends first.
func (p *BatchProcessor) ForceFlush(ctx context.Context) error {
	return p.b.flush(ctx)
}

// Shutdown stops the goroutine, exports what is pending and then shuts the
// exporter down. Spans ended afterwards are dropped. When ctx ends first,
// Shutdown returns its error and the rest finishes in the background once
// the export under way returns (within ExportTimeout). Calling it again
// returns the first call's result.
func (p *BatchProcessor) Shutdown(ctx context.Context) error {
	return p.b.shutdown(ctx)
}
