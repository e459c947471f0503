package observe_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/loomwork/loom/observe"
	"github.com/loomwork/loom/observe/store"
	"go.opentelemetry.io/otel/attribute"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
)

// BenchmarkSpanProcessor is one span with six attributes started and ended
// under a tracer provider with no processor, with the SDK's batch span
// processor and with loom's BatchProcessor, all exporting to an exporter
// that drops spans: the processors' cost on the goroutine that ends spans.
// provider=native is the same span under loom's own tracer provider, with
// a root span around it so that each op encodes a whole trace for a
// writer that drops it.
//
//	go test ./observe -run '^$' -bench SpanProcessor -benchmem -cpu 1,2
func BenchmarkSpanProcessor(b *testing.B) {
	attrs := []attribute.KeyValue{
		attribute.String("gen_ai.operation.name", "chat"),
		attribute.String("gen_ai.provider.name", "openai"),
		attribute.String("gen_ai.request.model", "gpt-5.4-mini"),
		attribute.Int64("gen_ai.usage.input_tokens", 120),
		attribute.Int64("gen_ai.usage.output_tokens", 42),
		attribute.Float64("loom.cost.usd", 0.0000432),
	}
	run := func(b *testing.B, tp *sdktrace.TracerProvider) {
		tr := tp.Tracer("github.com/loomwork/loom")
		ctx, root := tr.Start(context.Background(), "invoke_agent bench")
		b.ReportAllocs()
		for b.Loop() {
			_, sp := tr.Start(ctx, "chat gpt-5.4-mini", trace.WithSpanKind(trace.SpanKindClient))
			sp.SetAttributes(attrs...)
			sp.End()
		}
		root.End()
		b.StopTimer()
		if err := tp.Shutdown(context.Background()); err != nil {
			b.Fatal(err)
		}
	}
	b.Run("processor=none", func(b *testing.B) { run(b, sdktrace.NewTracerProvider()) })
	b.Run("provider=native", func(b *testing.B) {
		st, err := store.Open(context.Background(), store.Config{Path: filepath.Join(b.TempDir(), "traces.db")})
		if err != nil {
			b.Fatal(err)
		}
		defer st.Close()
		tp, err := observe.NewDiscardingTracerProvider(st)
		if err != nil {
			b.Fatal(err)
		}
		tr := tp.Tracer("github.com/loomwork/loom")
		b.ReportAllocs()
		for b.Loop() {
			ctx, root := tr.Start(context.Background(), "invoke_agent bench")
			_, sp := tr.Start(ctx, "chat gpt-5.4-mini", trace.WithSpanKind(trace.SpanKindClient))
			sp.SetAttributes(attrs...)
			sp.End()
			root.End()
		}
		b.StopTimer()
		if err := tp.Shutdown(context.Background()); err != nil {
			b.Fatal(err)
		}
	})
	b.Run("processor=sdk", func(b *testing.B) {
		run(b, sdktrace.NewTracerProvider(sdktrace.WithBatcher(discardExporter{}, sdktrace.WithMaxQueueSize(observe.DefaultMaxQueue))))
	})
	b.Run("processor=loom", func(b *testing.B) {
		bp, err := observe.NewBatchProcessor(discardExporter{}, observe.BatchConfig{})
		if err != nil {
			b.Fatal(err)
		}
		run(b, sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(bp)))
		// A loop that does nothing but end spans can outrun the exporter
		// when the machine is busy; the SDK's processor drops then too.
		b.ReportMetric(float64(bp.Dropped())/float64(b.N), "dropped/op")
	})
}
