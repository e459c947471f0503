package observe

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"go.opentelemetry.io/otel"
)

// batcher queues items (spans, or parts of traces) and hands them to an
// export function in batches from its own goroutine, which wakes only when
// BatchSize spans are pending or the interval has passed. weight is how
// many spans an item holds. Exports run one at a time, in queue order.
type batcher[T any] struct {
	export    func(context.Context, []T) error
	shutExp   func(context.Context) error
	weight    func(T) int
	onTick    func()
	cfg       BatchConfig
	mu        sync.Mutex // guards pending, queued, spare and closed
	pending   []T
	queued    int // spans in pending
	spare     []T // the last exported batch's array, for reuse
	closed    bool
	dropped   atomic.Uint64
	exporting chan struct{} // a one-slot semaphore: one export at a time
	wake      chan struct{} // a full batch is pending
	stop      chan struct{} // closed by shutdown
	done      chan struct{} // closed when the goroutine has returned

	shutdownOnce sync.Once
	shutdownErr  error
}

// newBatcher starts a batcher; onTick, when not nil, runs on its goroutine
// each interval before the pending items are exported.
func newBatcher[T any](cfg BatchConfig, export func(context.Context, []T) error, shutExp func(context.Context) error, weight func(T) int, onTick func()) (*batcher[T], error) {
	cfg, err := cfg.resolve()
	if err != nil {
		return nil, err
	}
	b := &batcher[T]{
		export:    export,
		shutExp:   shutExp,
		weight:    weight,
		onTick:    onTick,
		cfg:       cfg,
		exporting: make(chan struct{}, 1),
		wake:      make(chan struct{}, 1),
		stop:      make(chan struct{}),
		done:      make(chan struct{}),
	}
	go b.run()
	return b, nil
}

// add queues x, or drops and counts its spans when the queue is full or
// the batcher is shut down.
func (b *batcher[T]) add(x T) {
	w := b.weight(x)
	b.mu.Lock()
	if b.closed || b.queued+w > b.cfg.MaxQueue {
		b.mu.Unlock()
		b.dropped.Add(uint64(w))
		return
	}
	b.pending = append(b.pending, x)
	full := b.queued < b.cfg.BatchSize && b.queued+w >= b.cfg.BatchSize
	b.queued += w
	b.mu.Unlock()
	if full {
		select {
		case b.wake <- struct{}{}:
		default: // a wake-up is already due
		}
	}
}

// shutdown stops the goroutine, exports what is pending and then shuts the
// exporter down; see [BatchProcessor.Shutdown].
func (b *batcher[T]) shutdown(ctx context.Context) error {
	b.shutdownOnce.Do(func() {
		b.mu.Lock()
		b.closed = true
		b.mu.Unlock()
		close(b.stop)
		finished := make(chan error, 1)
		go func() {
			<-b.done
			// The last export is bounded by ExportTimeout, not by ctx, as the
			// goroutine's are: ctx bounds how long the caller waits.
			fctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), b.cfg.ExportTimeout)
			err := b.flush(fctx)
			cancel()
			if serr := b.shutExp(ctx); serr != nil {
				err = errors.Join(err, fmt.Errorf("observe: shut the span exporter down: %w", serr))
			}
			finished <- err
		}()
		select {
		case b.shutdownErr = <-finished:
		case <-ctx.Done():
			b.shutdownErr = fmt.Errorf("observe: shut the span processor down (the pending spans are exported in the background): %w", context.Cause(ctx))
		}
	})
	return b.shutdownErr
}

// run is the batcher's goroutine: it exports when a batch is full or the
// interval passes, until shutdown.
func (b *batcher[T]) run() {
	defer close(b.done)
	tick := time.NewTicker(b.cfg.Interval)
	defer tick.Stop()
	for {
		select {
		case <-b.stop:
			return
		case <-b.wake:
		case <-tick.C:
			if b.onTick != nil {
				b.onTick()
			}
		}
		for {
			ctx, cancel := context.WithTimeout(context.Background(), b.cfg.ExportTimeout)
			err := b.flush(ctx)
			cancel()
			if err != nil {
				otel.Handle(err)
			}
			// Items queued during the export: go on at once only when
			// they fill a batch; the interval takes the rest.
			b.mu.Lock()
			more := b.queued >= b.cfg.BatchSize && !b.closed
			b.mu.Unlock()
			if !more {
				break
			}
		}
	}
}

// flush takes everything pending and exports it in batches of at most
// BatchSize spans (at least one item each), one export at a time.
func (b *batcher[T]) flush(ctx context.Context) error {
	select {
	case b.exporting <- struct{}{}:
	case <-ctx.Done():
		return fmt.Errorf("observe: wait for the span export under way: %w", context.Cause(ctx))
	}
	defer func() { <-b.exporting }()

	b.mu.Lock()
	batch := b.pending
	b.pending, b.spare, b.queued = b.spare[:0], nil, 0
	b.mu.Unlock()
	if len(batch) == 0 {
		b.mu.Lock()
		b.spare = batch
		b.mu.Unlock()
		return nil
	}

	var errs []error
	for start := 0; start < len(batch); {
		end, spans := start, 0
		for end < len(batch) && (end == start || spans+b.weight(batch[end]) <= b.cfg.BatchSize) {
			spans += b.weight(batch[end])
			end++
		}
		if err := b.export(ctx, batch[start:end]); err != nil {
			errs = append(errs, fmt.Errorf("observe: export %d spans: %w", spans, err))
		}
		start = end
	}
	clear(batch) // let the items be collected
	b.mu.Lock()
	b.spare = batch[:0]
	b.mu.Unlock()
	return errors.Join(errs...)
}
