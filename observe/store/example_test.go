package store_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/loomwork/loom/observe/store"
	"go.opentelemetry.io/otel/attribute"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
)

// Record spans into a trace database and list the runs.
func ExampleOpenExporter() {
	ctx := context.Background()
	dir, err := os.MkdirTemp("", "loom-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)

	exp, err := store.OpenExporter(ctx, store.Config{Path: filepath.Join(dir, "traces.db")})
	if err != nil {
		log.Fatal(err)
	}
	tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(exp))
	tracer := tp.Tracer("github.com/loomwork/loom")

	_, span := tracer.Start(ctx, "invoke_agent coder")
	span.SetAttributes(
		attribute.String("gen_ai.operation.name", "invoke_agent"),
		attribute.String("gen_ai.agent.name", "coder"),
		attribute.String("loom.agent.input", `{"message":"10! = ?"}`),
	)
	span.End()

	// Read before shutting down: the exporter owns the store and closes it.
	if err := tp.ForceFlush(ctx); err != nil {
		log.Fatal(err)
	}
	page, err := exp.Store().Traces(ctx, store.Query{})
	if err != nil {
		log.Fatal(err)
	}
	for _, t := range page.Traces {
		fmt.Printf("%s %q %s spans=%d\n", t.Agent, t.Input, t.Status, t.Spans)
	}
	if err := tp.Shutdown(ctx); err != nil {
		log.Fatal(err)
	}
	// Output:
	// coder "10! = ?" ok spans=1
}
