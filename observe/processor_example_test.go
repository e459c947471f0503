package observe_test

import (
	"context"
	"fmt"
	"log"

	"github.com/loomwork/loom/observe"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
)

// printExporter prints the name of each span it receives.
type printExporter struct{}

func (printExporter) ExportSpans(_ context.Context, spans []sdktrace.ReadOnlySpan) error {
	for _, s := range spans {
		fmt.Println("exported", s.Name())
	}
	return nil
}

func (printExporter) Shutdown(context.Context) error { return nil }

// Put any span exporter behind a BatchProcessor, as Setup does: ending a
// span only appends it to a buffer, and shutting the provider down exports
// what is pending.
func ExampleNewBatchProcessor() {
	ctx := context.Background()
	bp, err := observe.NewBatchProcessor(printExporter{}, observe.BatchConfig{BatchSize: 100})
	if err != nil {
		log.Fatal(err)
	}
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(bp))
	tracer := tp.Tracer("github.com/loomwork/loom")
	for _, name := range []string{"chat gpt-5.4-mini", "execute_tool evaluateJs"} {
		_, span := tracer.Start(ctx, name)
		span.End()
	}
	if err := tp.Shutdown(ctx); err != nil {
		log.Fatal(err)
	}
	fmt.Println("dropped:", bp.Dropped())
	// Output:
	// exported chat gpt-5.4-mini
	// exported execute_tool evaluateJs
	// dropped: 0
}
