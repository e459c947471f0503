package observe_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/loomwork/loom/observe"
	"github.com/loomwork/loom/observe/store"
	"go.opentelemetry.io/otel/attribute"
)

// Record spans to the trace store, as a program embedding loom would; `loom
// observe --db PATH` then shows the run.
func ExampleSetup() {
	ctx := context.Background()
	dir, err := os.MkdirTemp("", "loom-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)

	tel, shutdown, err := observe.Setup(ctx, observe.Config{
		Exporter:  observe.ExporterStore,
		StorePath: filepath.Join(dir, "traces.db"),
	})
	if err != nil {
		log.Fatal(err)
	}
	// In a real program: ctx = agentrt.WithTracerProvider(ctx, tel.TracerProvider)
	_, span := tel.TracerProvider.Tracer("github.com/loomwork/loom").Start(ctx, "invoke_agent coder")
	span.SetAttributes(attribute.String("gen_ai.operation.name", "invoke_agent"), attribute.String("gen_ai.agent.name", "coder"))
	span.End()

	if err := tel.ForceFlush(ctx); err != nil {
		log.Fatal(err)
	}
	agents, err := tel.Store.Agents(ctx)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(agents[0].Name, agents[0].Traces)
	if err := shutdown(ctx); err != nil { // flushes and closes the store
		log.Fatal(err)
	}
	// Output:
	// coder 1
}

// Record to the trace store with loom's own tracer provider, as
// observe.Setup does for the store; each run is written as one row when
// its root span ends.
func ExampleNewTracerProvider() {
	ctx := context.Background()
	dir, err := os.MkdirTemp("", "loom-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	st, err := store.Open(ctx, store.Config{Path: filepath.Join(dir, "traces.db")})
	if err != nil {
		log.Fatal(err)
	}
	tp, err := observe.NewTracerProvider(st, observe.BatchConfig{}, true)
	if err != nil {
		log.Fatal(err)
	}
	// In a real program: ctx = agentrt.WithTracerProvider(ctx, tp)
	tr := tp.Tracer("github.com/loomwork/loom")
	rctx, run := tr.Start(ctx, "invoke_agent coder")
	run.SetAttributes(attribute.String("gen_ai.operation.name", "invoke_agent"), attribute.String("gen_ai.agent.name", "coder"))
	_, call := tr.Start(rctx, "chat gpt-5.4-mini")
	call.SetAttributes(attribute.String("gen_ai.operation.name", "chat"), attribute.Int64("gen_ai.usage.input_tokens", 120))
	call.End()
	run.End()

	if err := tp.ForceFlush(ctx); err != nil {
		log.Fatal(err)
	}
	page, err := st.Traces(ctx, store.Query{})
	if err != nil {
		log.Fatal(err)
	}
	t := page.Traces[0]
	fmt.Println(t.Agent, t.Status, t.Spans, t.ModelCalls, t.InputTokens)
	if err := tp.Shutdown(ctx); err != nil { // writes what is pending and closes the store
		log.Fatal(err)
	}
	// Output:
	// coder ok 2 1 120
}
