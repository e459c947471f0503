package store_test

import (
	"context"
	"path/filepath"
	"runtime"
	"strconv"
	"testing"
	"time"

	"github.com/loomwork/loom/observe/internal/fixture"
	"github.com/loomwork/loom/observe/store"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/attribute"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
)

// benchBatches builds count batches of Coder→Sandbox runs, perBatch runs
// (6 spans each) per batch, all with distinct ids.
func benchBatches(count, perBatch int) [][]sdktrace.ReadOnlySpan {
	out := make([][]sdktrace.ReadOnlySpan, count)
	start := time.Now().Add(-time.Minute)
	for i := range out {
		for j := range perBatch {
			seed := uint64(i*perBatch + j + 1)
			out[i] = append(out[i], fixture.CoderSandbox(fixture.Run{Seed: seed, Start: start}).Snapshots()...)
		}
	}
	return out
}

// BenchmarkExportSpans measures the exporter alone: one op is one
// ExportSpans call of 510 spans (85 runs with content captured), one
// transaction, as a batch span processor sends them.
func BenchmarkExportSpans(b *testing.B) {
	ctx := context.Background()
	batches := benchBatches(32, 85)
	spansPerOp := len(batches[0])
	open := func() (*store.Store, *store.Exporter) {
		s, err := store.Open(ctx, filepath.Join(b.TempDir(), "bench.db"))
		require.NoError(b, err)
		return s, store.NewExporter(s)
	}
	s, exp := open()
	var ms0, ms1 runtime.MemStats
	runtime.ReadMemStats(&ms0)
	var spans int
	var elapsed time.Duration
	t0 := time.Now()
	i := 0
	for b.Loop() {
		if i == len(batches) {
			// Every id is stored: start over on a fresh file so that
			// exports keep inserting rather than skipping duplicates.
			elapsed += time.Since(t0)
			b.StopTimer()
			require.NoError(b, s.Close())
			s, exp = open()
			i = 0
			b.StartTimer()
			t0 = time.Now()
		}
		require.NoError(b, exp.ExportSpans(ctx, batches[i]))
		spans += spansPerOp
		i++
	}
	elapsed += time.Since(t0)
	runtime.ReadMemStats(&ms1)
	require.NoError(b, s.Close())
	b.ReportMetric(float64(spans)/elapsed.Seconds(), "spans/s")
	b.ReportMetric(float64(ms1.Mallocs-ms0.Mallocs)/float64(spans), "allocs/span")
}

// BenchmarkTracerToStore measures spans created with a tracer and written
// by the batch span processor to the store, flushed at the end: one op is
// one span.
func BenchmarkTracerToStore(b *testing.B) {
	ctx := context.Background()
	s, err := store.Open(ctx, filepath.Join(b.TempDir(), "bench.db"))
	require.NoError(b, err)
	defer s.Close()
	tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(store.NewExporter(s),
		sdktrace.WithMaxQueueSize(1<<16), sdktrace.WithBlocking()))
	tracer := tp.Tracer("github.com/loomwork/loom")
	rctx, root := tracer.Start(ctx, "invoke_agent bench")
	attrs := []attribute.KeyValue{
		attribute.String("gen_ai.operation.name", "chat"),
		attribute.String("gen_ai.provider.name", "openai"),
		attribute.String("gen_ai.request.model", "gpt-4o-mini"),
		attribute.Int64("gen_ai.usage.input_tokens", 120),
		attribute.Int64("gen_ai.usage.output_tokens", 42),
		attribute.Float64("loom.cost.usd", 0.0000432),
	}
	b.ReportAllocs()
	start := time.Now()
	n := 0
	for b.Loop() {
		_, sp := tracer.Start(rctx, "chat gpt-4o-mini", trace.WithSpanKind(trace.SpanKindClient), trace.WithAttributes(attrs...))
		sp.SetAttributes(attribute.String("n", strconv.Itoa(n)))
		sp.End()
		n++
	}
	root.End()
	require.NoError(b, tp.ForceFlush(ctx))
	b.ReportMetric(float64(n)/time.Since(start).Seconds(), "spans/s")
	require.NoError(b, tp.Shutdown(ctx))
}
