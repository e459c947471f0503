package observe

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"go.opentelemetry.io/otel"
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
	exp sdktrace.SpanExporter
	cfg BatchConfig

	mu      sync.Mutex // guards pending, spare and closed
	pending []sdktrace.ReadOnlySpan
	spare   []sdktrace.ReadOnlySpan // the last exported batch's array, for reuse
	closed  bool

	exporting chan struct{} // a one-slot semaphore: one export at a time
	wake      chan struct{} // a full batch is pending
	stop      chan struct{} // closed by Shutdown
	done      chan struct{} // closed when the goroutine has returned
	dropped   atomic.Uint64

	shutdownOnce sync.Once
	shutdownErr  error
}

var _ sdktrace.SpanProcessor = (*BatchProcessor)(nil)

// NewBatchProcessor returns a processor exporting to exp, with its
// goroutine started; [BatchProcessor.Shutdown] stops it, exports what is
// pending and shuts exp down.
func NewBatchProcessor(exp sdktrace.SpanExporter, cfg BatchConfig) (*BatchProcessor, error) {
	if exp == nil {
		return nil, fmt.Errorf("%w: the exporter is nil", ErrInvalidBatchConfig)
	}
	cfg, err := cfg.resolve()
	if err != nil {
		return nil, err
	}
	p := &BatchProcessor{
		exp:       exp,
		cfg:       cfg,
		exporting: make(chan struct{}, 1),
		wake:      make(chan struct{}, 1),
		stop:      make(chan struct{}),
		done:      make(chan struct{}),
	}
	go p.run()
	return p, nil
}

// OnStart does nothing.
func (*BatchProcessor) OnStart(context.Context, sdktrace.ReadWriteSpan) {}

// OnEnd queues a sampled span for export, or drops and counts it when the
// queue is full or the processor is shut down.
func (p *BatchProcessor) OnEnd(s sdktrace.ReadOnlySpan) {
	if !s.SpanContext().IsSampled() {
		return
	}
	p.mu.Lock()
	if p.closed || len(p.pending) >= p.cfg.MaxQueue {
		p.mu.Unlock()
		p.dropped.Add(1)
		return
	}
	p.pending = append(p.pending, s)
	full := len(p.pending) == p.cfg.BatchSize
	p.mu.Unlock()
	if full {
		select {
		case p.wake <- struct{}{}:
		default: // a wake-up is already due
		}
	}
}

// Dropped returns how many spans were dropped because the queue was full
// or the processor was shut down.
func (p *BatchProcessor) Dropped() uint64 { return p.dropped.Load() }

// ForceFlush exports every span that ended before the call, waiting for an
// export under way to finish first. It returns the exporter's error, or
// ctx's when ctx ends first.
func (p *BatchProcessor) ForceFlush(ctx context.Context) error {
	return p.flush(ctx)
}

// Shutdown stops the goroutine, exports what is pending and then shuts the
// exporter down. Spans ended afterwards are dropped. When ctx ends first,
// Shutdown returns its error and the rest finishes in the background once
// the export under way returns (within ExportTimeout). Calling it again
// returns the first call's result.
func (p *BatchProcessor) Shutdown(ctx context.Context) error {
	p.shutdownOnce.Do(func() {
		p.mu.Lock()
		p.closed = true
		p.mu.Unlock()
		close(p.stop)
		finished := make(chan error, 1)
		go func() {
			<-p.done
			// The last export is bounded by ExportTimeout, not by ctx, as the
			// goroutine's are: ctx bounds how long the caller waits.
			fctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), p.cfg.ExportTimeout)
			err := p.flush(fctx)
			cancel()
			if serr := p.exp.Shutdown(ctx); serr != nil {
				err = errors.Join(err, fmt.Errorf("observe: shut the span exporter down: %w", serr))
			}
			finished <- err
		}()
		select {
		case p.shutdownErr = <-finished:
		case <-ctx.Done():
			p.shutdownErr = fmt.Errorf("observe: shut the span processor down (the pending spans are exported in the background): %w", context.Cause(ctx))
		}
	})
	return p.shutdownErr
}

// run is the processor's goroutine: it exports when a batch is full or the
// interval passes, until Shutdown.
func (p *BatchProcessor) run() {
	defer close(p.done)
	tick := time.NewTicker(p.cfg.Interval)
	defer tick.Stop()
	for {
		select {
		case <-p.stop:
			return
		case <-p.wake:
		case <-tick.C:
		}
		for {
			ctx, cancel := context.WithTimeout(context.Background(), p.cfg.ExportTimeout)
			err := p.flush(ctx)
			cancel()
			if err != nil {
				otel.Handle(err)
			}
			// Spans that ended during the export: go on at once only when
			// they fill a batch; the interval takes the rest.
			p.mu.Lock()
			more := len(p.pending) >= p.cfg.BatchSize && !p.closed
			p.mu.Unlock()
			if !more {
				break
			}
		}
	}
}

// flush takes every pending span and exports it in batches of at most
// BatchSize, one export at a time.
func (p *BatchProcessor) flush(ctx context.Context) error {
	select {
	case p.exporting <- struct{}{}:
	case <-ctx.Done():
		return fmt.Errorf("observe: wait for the span export under way: %w", context.Cause(ctx))
	}
	defer func() { <-p.exporting }()

	p.mu.Lock()
	batch := p.pending
	p.pending, p.spare = p.spare[:0], nil
	p.mu.Unlock()
	if len(batch) == 0 {
		p.mu.Lock()
		p.spare = batch
		p.mu.Unlock()
		return nil
	}

	var errs []error
	for start := 0; start < len(batch); start += p.cfg.BatchSize {
		end := min(start+p.cfg.BatchSize, len(batch))
		if err := p.exp.ExportSpans(ctx, batch[start:end]); err != nil {
			errs = append(errs, fmt.Errorf("observe: export %d spans: %w", end-start, err))
		}
	}
	clear(batch) // let the spans be collected
	p.mu.Lock()
	p.spare = batch[:0]
	p.mu.Unlock()
	return errors.Join(errs...)
}
