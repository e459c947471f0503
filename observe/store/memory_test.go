package store_test

import (
	"context"
	"fmt"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/loomwork/loom/observe/store"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/attribute"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
)

func heapAfterGC() uint64 {
	var m runtime.MemStats
	runtime.GC()
	runtime.GC()
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// TestTenThousandSpansBoundedMemory records one run of 10,000 spans
// through a batch span processor and checks that the Go heap does not grow
// with the number of spans written: after the first 2,000 spans, the heap
// measured after each further 2,000 stays within a small band.
func TestTenThousandSpansBoundedMemory(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "traces.db")
	s, err := store.Open(ctx, store.Config{Path: path})
	require.NoError(t, err)
	defer s.Close()
	tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(store.NewExporter(s)))
	tracer := tp.Tracer("github.com/loomwork/loom")

	const total, step = 10_000, 2_000
	payload := string(make([]byte, 512)) // content-sized attribute
	rctx, root := tracer.Start(ctx, "invoke_agent bulk", trace.WithAttributes(
		attribute.String("gen_ai.operation.name", "invoke_agent"), attribute.String("gen_ai.agent.name", "bulk")))
	var heaps []uint64
	for i := 1; i < total; i++ {
		_, sp := tracer.Start(rctx, "chat tiny", trace.WithSpanKind(trace.SpanKindClient), trace.WithAttributes(
			attribute.String("gen_ai.operation.name", "chat"),
			attribute.String("gen_ai.provider.name", "ollama"),
			attribute.String("gen_ai.request.model", "tiny"),
			attribute.Int64("gen_ai.usage.input_tokens", 3),
			attribute.Int64("gen_ai.usage.output_tokens", 2),
			attribute.String("gen_ai.output.messages", payload),
			attribute.Int("n", i),
		))
		sp.End()
		if i%step == 0 {
			require.NoError(t, tp.ForceFlush(ctx))
			heaps = append(heaps, heapAfterGC())
		}
	}
	root.End()
	require.NoError(t, tp.Shutdown(ctx))
	heaps = append(heaps, heapAfterGC())

	lo, hi := heaps[0], heaps[0]
	for _, h := range heaps {
		lo, hi = min(lo, h), max(hi, h)
	}
	t.Logf("heap after GC every %d spans: %v (spread %.1f KiB)", step, mib(heaps), float64(hi-lo)/1024)
	// A leak of 200 bytes a span would add 1.6 MB over the 8,000 spans measured.
	require.Less(t, hi-lo, uint64(1<<20), "the heap grew with the spans written: %v", mib(heaps))

	p, err := s.Traces(ctx, store.Query{})
	require.NoError(t, err)
	require.Len(t, p.Traces, 1)
	require.Equal(t, int64(total), p.Traces[0].Spans)
	require.Equal(t, int64(total-1), p.Traces[0].ModelCalls)
	require.Equal(t, int64(5*(total-1)), p.Traces[0].TotalTokens)
	require.Equal(t, "bulk", p.Traces[0].Agent)
	require.Equal(t, "ok", p.Traces[0].Status)
}

func mib(xs []uint64) []string {
	out := make([]string, len(xs))
	for i, x := range xs {
		out[i] = fmt.Sprintf("%.2fMiB", float64(x)/(1<<20))
	}
	return out
}
