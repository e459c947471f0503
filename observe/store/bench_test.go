package store_test

import (
	"context"
	"path/filepath"
	"runtime"
	"strconv"
	"testing"
	"time"

	"github.com/loomwork/loom/internal/cputime"
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
	batches := benchBatches(32, 85)
	benchWrites(b, len(batches), len(batches[0]), func(ctx context.Context, s *store.Store, i int) error {
		return store.NewExporter(s).ExportSpans(ctx, batches[i])
	})
}

// benchWrites runs write(i) per op for i = 0, 1, … n-1, on a fresh store
// each time i starts over (so that writes keep inserting rather than
// skipping what was stored), and reports spans/s and allocations per span.
func benchWrites(b *testing.B, n, spansPerOp int, write func(ctx context.Context, s *store.Store, i int) error) {
	ctx := context.Background()
	open := func() *store.Store {
		s, err := store.Open(ctx, store.Config{Path: filepath.Join(b.TempDir(), "bench.db")})
		require.NoError(b, err)
		return s
	}
	s := open()
	var ms0, ms1 runtime.MemStats
	runtime.ReadMemStats(&ms0)
	var spans int
	var elapsed time.Duration
	t0 := time.Now()
	i := 0
	for b.Loop() {
		if i == n {
			elapsed += time.Since(t0)
			b.StopTimer()
			require.NoError(b, s.Close())
			s = open()
			i = 0
			b.StartTimer()
			t0 = time.Now()
		}
		require.NoError(b, write(ctx, s, i))
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
	s, err := store.Open(ctx, store.Config{Path: filepath.Join(b.TempDir(), "bench.db")})
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

// partsOf turns exported spans into the parts loom's own tracer provider
// would write: one per trace.
func partsOf(spans []sdktrace.ReadOnlySpan) []store.Part {
	var parts []store.Part
	for _, s := range spans {
		id := s.SpanContext().TraceID()
		if len(parts) == 0 || parts[len(parts)-1].TraceID != id {
			parts = append(parts, store.Part{TraceID: id})
		}
		p := &parts[len(parts)-1]
		r := &store.Record{
			SpanID: s.SpanContext().SpanID(), ParentID: s.Parent().SpanID(), RemoteParent: s.Parent().IsRemote(),
			Name: s.Name(), Kind: s.SpanKind(), Start: s.StartTime(), End: s.EndTime(),
			Status: s.Status().Code, StatusMessage: s.Status().Description,
			Attributes: s.Attributes(), Scope: s.InstrumentationScope().Name,
		}
		for _, e := range s.Events() {
			r.Events = append(r.Events, store.RecordEvent{Name: e.Name, Time: e.Time, Attributes: e.Attributes})
		}
		p.Spans = append(p.Spans, r)
	}
	return parts
}

// BenchmarkWriteParts is BenchmarkExportSpans's data written as loom's own
// tracer provider writes it: one op is one WriteParts call of 85 runs (510
// spans), each run one row.
func BenchmarkWriteParts(b *testing.B) {
	var batches [][]store.Part
	for _, spans := range benchBatches(32, 85) {
		batches = append(batches, partsOf(spans))
	}
	spansPerOp := 0
	for _, p := range batches[0] {
		spansPerOp += len(p.Spans)
	}
	benchWrites(b, len(batches), spansPerOp, func(ctx context.Context, s *store.Store, i int) error {
		return s.WriteParts(ctx, batches[i])
	})
}

// BenchmarkWriteRuns writes runs without captured content (6 spans each)
// as loom's own tracer provider does, perCall runs per WriteParts call
// (one transaction): one op is one run.
func BenchmarkWriteRuns(b *testing.B) {
	for _, perCall := range []int{1, 16, 64, 256} {
		b.Run("runs="+strconv.Itoa(perCall), func(b *testing.B) {
			start := time.Now().Add(-time.Minute)
			calls := make([][]store.Part, 2048/perCall)
			for i := range calls {
				for j := range perCall {
					calls[i] = append(calls[i], runParts(fixture.Run{Seed: uint64(i*perCall + j + 1), Start: start, NoContent: true})...)
				}
			}
			i := 0
			b.ReportAllocs()
			cpu0 := cputime.Process()
			benchWrites(b, 1<<30, 6, func(ctx context.Context, s *store.Store, _ int) error {
				if i%perCall != 0 {
					i++
					return nil
				}
				err := s.WriteParts(ctx, calls[(i/perCall)%len(calls)])
				i++
				return err
			})
			b.ReportMetric(float64(cputime.Process()-cpu0)/float64(b.N), "cpu-ns/op")
		})
	}
}

// oneShotWriter is what a one-shot program writes its run through.
type oneShotWriter interface {
	WriteParts(context.Context, []store.Part) error
	Close() error
}

// BenchmarkOneShot is what a program that runs once costs the store:
// "database" opens an existing trace database, writes one run (6 spans,
// content captured) in one WriteParts call and closes it; "spool" does the
// same through a store.Spool, as the example CLIs and loom run do, and
// every 64th op stores the spool folder into the database, as the program
// that finds it full does, so its figure includes that ingest.
func BenchmarkOneShot(b *testing.B) {
	for _, c := range []struct {
		name string
		open func(context.Context, store.Config) (oneShotWriter, error)
	}{
		{"database", func(ctx context.Context, cfg store.Config) (oneShotWriter, error) { return store.Open(ctx, cfg) }},
		{"spool", func(ctx context.Context, cfg store.Config) (oneShotWriter, error) { return store.OpenSpool(ctx, cfg) }},
	} {
		b.Run(c.name, func(b *testing.B) {
			ctx := context.Background()
			path := filepath.Join(b.TempDir(), "traces.db")
			s, err := store.Open(ctx, store.Config{Path: path})
			require.NoError(b, err)
			require.NoError(b, s.Close())
			start := time.Now().Add(-time.Minute)
			b.ReportAllocs()
			i := 0
			cpu0 := cputime.Process()
			defer func() { b.ReportMetric(float64(cputime.Process()-cpu0)/float64(b.N), "cpu-ns/op") }()
			for b.Loop() {
				i++
				w, err := c.open(ctx, store.Config{Path: path})
				if err != nil {
					b.Fatal(err)
				}
				if err := w.WriteParts(ctx, runParts(fixture.Run{Seed: uint64(i), Start: start})); err != nil {
					b.Fatal(err)
				}
				if err := w.Close(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkSpoolIngest is what a reader pays to store spooled runs: one
// op opens the database while the spool folder holds 16 one-run files,
// as after 16 one-shot runs.
func BenchmarkSpoolIngest(b *testing.B) {
	ctx := context.Background()
	path := filepath.Join(b.TempDir(), "traces.db")
	start := time.Now().Add(-time.Minute)
	b.ReportAllocs()
	seed := uint64(0)
	for b.Loop() {
		b.StopTimer()
		for range 16 {
			seed++
			sp, err := store.OpenSpool(ctx, store.Config{Path: path})
			require.NoError(b, err)
			require.NoError(b, sp.WriteParts(ctx, runParts(fixture.Run{Seed: seed, Start: start})))
			require.NoError(b, sp.Close())
		}
		b.StartTimer()
		s, err := store.Open(ctx, store.Config{Path: path})
		if err != nil {
			b.Fatal(err)
		}
		if err := s.Close(); err != nil {
			b.Fatal(err)
		}
	}
}
