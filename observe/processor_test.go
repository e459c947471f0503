package observe_test

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/loomwork/loom/observe"
	"github.com/stretchr/testify/require"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
)

// recordingExporter keeps the names of the spans of each ExportSpans call.
// When gate is set, each export first says so on entered and then waits
// for gate to be closed.
type recordingExporter struct {
	gate    chan struct{}
	entered chan struct{}
	err     error

	mu       sync.Mutex
	batches  [][]string
	shutdown int
}

func (e *recordingExporter) ExportSpans(ctx context.Context, spans []sdktrace.ReadOnlySpan) error {
	if e.gate != nil {
		e.entered <- struct{}{}
		select {
		case <-e.gate:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	names := make([]string, len(spans))
	for i, s := range spans {
		names[i] = s.Name()
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	e.batches = append(e.batches, names)
	return e.err
}

func (e *recordingExporter) Shutdown(context.Context) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.shutdown++
	return nil
}

// names returns every exported span's name, in export order.
func (e *recordingExporter) names() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	var out []string
	for _, b := range e.batches {
		out = append(out, b...)
	}
	return out
}

func (e *recordingExporter) batchSizes() []int {
	e.mu.Lock()
	defer e.mu.Unlock()
	out := make([]int, len(e.batches))
	for i, b := range e.batches {
		out[i] = len(b)
	}
	return out
}

// newProcessor returns a processor over exp inside a tracer provider; the
// provider is shut down at the end of the test.
func newProcessor(t *testing.T, exp sdktrace.SpanExporter, cfg observe.BatchConfig, opts ...sdktrace.TracerProviderOption) (*observe.BatchProcessor, *sdktrace.TracerProvider) {
	t.Helper()
	bp, err := observe.NewBatchProcessor(exp, cfg)
	require.NoError(t, err)
	tp := sdktrace.NewTracerProvider(append([]sdktrace.TracerProviderOption{sdktrace.WithSpanProcessor(bp)}, opts...)...)
	t.Cleanup(func() { require.NoError(t, tp.Shutdown(context.Background())) })
	return bp, tp
}

// endSpans starts and ends spans named prefix0, prefix1, … one after another.
func endSpans(tp *sdktrace.TracerProvider, prefix string, n int) {
	tr := tp.Tracer("test")
	for i := range n {
		_, s := tr.Start(context.Background(), prefix+strconv.Itoa(i))
		s.End()
	}
}

func seq(prefix string, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = prefix + strconv.Itoa(i)
	}
	return out
}

func TestBatchProcessorOrderAndBatchSize(t *testing.T) {
	exp := &recordingExporter{}
	_, tp := newProcessor(t, exp, observe.BatchConfig{BatchSize: 4, Interval: time.Hour})
	endSpans(tp, "s", 10)
	require.NoError(t, tp.ForceFlush(context.Background()))
	require.Equal(t, seq("s", 10), exp.names(), "spans are exported once each, in the order they ended")
	for _, n := range exp.batchSizes() {
		require.LessOrEqual(t, n, 4, "no export is larger than BatchSize")
	}
}

func TestBatchProcessorExportsAFullBatchWithoutFlush(t *testing.T) {
	exp := &recordingExporter{}
	_, tp := newProcessor(t, exp, observe.BatchConfig{BatchSize: 3, Interval: time.Hour})
	endSpans(tp, "s", 2)
	endSpans(tp, "t", 1)
	require.Eventually(t, func() bool { return len(exp.names()) == 3 }, 10*time.Second, time.Millisecond,
		"a full batch is exported without waiting for the interval")
	require.Equal(t, []string{"s0", "s1", "t0"}, exp.names())
}

func TestBatchProcessorExportsAfterTheInterval(t *testing.T) {
	exp := &recordingExporter{}
	_, tp := newProcessor(t, exp, observe.BatchConfig{BatchSize: 100, Interval: 5 * time.Millisecond})
	endSpans(tp, "s", 1)
	require.Eventually(t, func() bool { return len(exp.names()) == 1 }, 10*time.Second, time.Millisecond,
		"a lone span is exported once the interval passes")
}

func TestBatchProcessorForceFlushReturnsTheExportError(t *testing.T) {
	boom := errors.New("collector down")
	exp := &recordingExporter{err: boom}
	_, tp := newProcessor(t, exp, observe.BatchConfig{Interval: time.Hour})
	endSpans(tp, "s", 2)
	err := tp.ForceFlush(context.Background())
	require.ErrorIs(t, err, boom)
	require.ErrorContains(t, err, "export 2 spans")
	require.NoError(t, tp.ForceFlush(context.Background()), "a failed batch is not retried")
}

func TestBatchProcessorShutdown(t *testing.T) {
	exp := &recordingExporter{}
	bp, err := observe.NewBatchProcessor(exp, observe.BatchConfig{Interval: time.Hour})
	require.NoError(t, err)
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(bp))
	endSpans(tp, "s", 5)

	require.NoError(t, bp.Shutdown(context.Background()))
	require.Equal(t, seq("s", 5), exp.names(), "Shutdown exports what is pending")
	require.Equal(t, 1, exp.shutdown, "Shutdown shuts the exporter down")

	endSpans(tp, "late", 2)
	require.Equal(t, uint64(2), bp.Dropped(), "spans ended after Shutdown are dropped and counted")
	require.NoError(t, bp.ForceFlush(context.Background()))
	require.NoError(t, bp.Shutdown(context.Background()), "a second Shutdown returns the first one's result")
	require.NoError(t, tp.Shutdown(context.Background()))
	require.Equal(t, seq("s", 5), exp.names())
	require.Equal(t, 1, exp.shutdown, "the exporter is shut down once")
}

func TestBatchProcessorDropsWhenTheQueueIsFull(t *testing.T) {
	exp := &recordingExporter{gate: make(chan struct{}), entered: make(chan struct{}, 16)}
	bp, tp := newProcessor(t, exp, observe.BatchConfig{BatchSize: 4, MaxQueue: 4, Interval: time.Hour})

	endSpans(tp, "a", 4) // a full batch: the goroutine takes it and blocks in the exporter
	select {
	case <-exp.entered:
	case <-time.After(10 * time.Second):
		t.Fatal("the full batch was not handed to the exporter")
	}
	endSpans(tp, "b", 4) // fills the queue while the export is under way
	endSpans(tp, "c", 3) // no room
	require.Equal(t, uint64(3), bp.Dropped())

	close(exp.gate)
	require.NoError(t, tp.ForceFlush(context.Background()))
	require.Equal(t, append(seq("a", 4), seq("b", 4)...), exp.names(), "what fitted is exported, in order")
	require.Equal(t, uint64(3), bp.Dropped())
}

// stuckProcessor returns a processor (batches of 2) whose goroutine is
// blocked exporting spans a0 and a1 until exp.gate is closed; the test
// shuts it down.
func stuckProcessor(t *testing.T) (*recordingExporter, *observe.BatchProcessor, *sdktrace.TracerProvider) {
	t.Helper()
	exp := &recordingExporter{gate: make(chan struct{}), entered: make(chan struct{}, 16)}
	bp, err := observe.NewBatchProcessor(exp, observe.BatchConfig{BatchSize: 2, Interval: time.Hour})
	require.NoError(t, err)
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(bp))
	endSpans(tp, "a", 2)
	<-exp.entered
	return exp, bp, tp
}

func TestBatchProcessorShutdownHonoursItsContext(t *testing.T) {
	exp, bp, tp := stuckProcessor(t)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	err := bp.Shutdown(ctx)
	require.ErrorIs(t, err, context.DeadlineExceeded)
	require.ErrorContains(t, err, "exported in the background")
	endSpans(tp, "late", 1)
	require.Equal(t, uint64(1), bp.Dropped(), "no span is taken after Shutdown")

	close(exp.gate) // the stuck export finishes, then the exporter is shut down (goleak checks the goroutines end)
	require.Eventually(t, func() bool {
		exp.mu.Lock()
		defer exp.mu.Unlock()
		return exp.shutdown == 1
	}, 10*time.Second, time.Millisecond)
	require.Equal(t, seq("a", 2), exp.names())
}

func TestBatchProcessorConcurrentSpans(t *testing.T) {
	exp := &recordingExporter{}
	bp, tp := newProcessor(t, exp, observe.BatchConfig{BatchSize: 16, MaxQueue: 1 << 14, Interval: time.Millisecond})
	const writers, each = 8, 300
	var wg sync.WaitGroup
	for w := range writers {
		wg.Go(func() { endSpans(tp, fmt.Sprintf("w%d-", w), each) })
	}
	wg.Wait()
	require.NoError(t, tp.ForceFlush(context.Background()))
	require.Zero(t, bp.Dropped())
	names := exp.names()
	require.Len(t, names, writers*each, "every span is exported exactly once")
	next := map[string]int{}
	for _, n := range names {
		var w, i int
		_, err := fmt.Sscanf(n, "w%d-%d", &w, &i)
		require.NoError(t, err)
		key := strconv.Itoa(w)
		require.Equal(t, next[key], i, "writer %d's spans stay in order", w)
		next[key]++
	}
}

func TestBatchProcessorSkipsUnsampledSpans(t *testing.T) {
	exp := &recordingExporter{}
	_, tp := newProcessor(t, exp, observe.BatchConfig{}, sdktrace.WithSampler(sdktrace.NeverSample()))
	endSpans(tp, "s", 3)
	require.NoError(t, tp.ForceFlush(context.Background()))
	require.Empty(t, exp.names())
}

func TestBatchConfigErrors(t *testing.T) {
	for _, tc := range []struct {
		name string
		cfg  observe.BatchConfig
		want string
	}{
		{"negative batch size", observe.BatchConfig{BatchSize: -1}, "BatchSize is -1"},
		{"negative queue", observe.BatchConfig{MaxQueue: -5}, "MaxQueue is -5"},
		{"negative interval", observe.BatchConfig{Interval: -time.Second}, "Interval is -1s"},
		{"negative timeout", observe.BatchConfig{ExportTimeout: -time.Second}, "ExportTimeout is -1s"},
		{"queue below batch", observe.BatchConfig{BatchSize: 100, MaxQueue: 10}, "MaxQueue (10) is below BatchSize (100)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := observe.NewBatchProcessor(&recordingExporter{}, tc.cfg)
			require.ErrorIs(t, err, observe.ErrInvalidBatchConfig)
			require.ErrorContains(t, err, tc.want)
		})
	}
	bp, err := observe.NewBatchProcessor(&recordingExporter{}, observe.BatchConfig{MaxQueue: 100})
	require.NoError(t, err, "a small queue alone lowers the default batch size")
	require.NoError(t, bp.Shutdown(context.Background()))

	_, err = observe.NewBatchProcessor(nil, observe.BatchConfig{})
	require.ErrorIs(t, err, observe.ErrInvalidBatchConfig)
	require.ErrorContains(t, err, "exporter is nil")
}

func TestSetupBatchConfig(t *testing.T) {
	ctx := context.Background()
	_, _, err := observe.Setup(ctx, observe.Config{Exporter: observe.ExporterNone, Batch: observe.BatchConfig{BatchSize: -2}})
	require.ErrorIs(t, err, observe.ErrInvalidBatchConfig)

	t.Setenv(observe.BatchIntervalEnv, "soon")
	_, _, err = observe.Setup(ctx, observe.Config{Exporter: observe.ExporterNone})
	require.ErrorIs(t, err, observe.ErrInvalidBatchConfig)
	require.ErrorContains(t, err, `OTEL_BSP_SCHEDULE_DELAY is "soon"`)
	require.ErrorContains(t, err, "milliseconds")

	// A field set in Config wins over the variable.
	_, shutdown, err := observe.Setup(ctx, observe.Config{Exporter: observe.ExporterNone, Batch: observe.BatchConfig{Interval: time.Second}})
	require.NoError(t, err)
	require.NoError(t, shutdown(ctx))
}

func TestBatchProcessorShutdownWaitsForTheExportUnderWay(t *testing.T) {
	exp, _, tp := stuckProcessor(t)
	endSpans(tp, "b", 1) // pending behind a0 and a1

	done := make(chan error, 1)
	go func() { done <- tp.Shutdown(context.Background()) }()
	close(exp.gate)
	select {
	case err := <-done:
		require.NoError(t, err)
	case <-time.After(10 * time.Second):
		t.Fatal("Shutdown did not return")
	}
	require.Equal(t, []string{"a0", "a1", "b0"}, exp.names(), "the pending span follows the export under way")
	require.Equal(t, 1, exp.shutdown, "the exporter is shut down after the last export")
}
