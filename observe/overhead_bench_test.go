package observe_test

import (
	"context"
	"encoding/json"
	"iter"
	"path/filepath"
	"sync/atomic"
	"testing"

	"github.com/loomwork/loom/agent"
	"github.com/loomwork/loom/codeexec"
	"github.com/loomwork/loom/model"
	"github.com/loomwork/loom/observe/store"
	"github.com/loomwork/loom/sandbox"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"
	"go.opentelemetry.io/otel/trace/noop"
)

// instantModel answers call i with turns[i % 2] and records nothing: a tool
// call, then the answer.
type instantModel struct{ n atomic.Int64 }

var instantTurns = [][]model.Chunk{
	{{ToolCall: &model.ToolCallDelta{ID: "c1", Name: "evaluateJs", ArgumentsDelta: `{"code":"function f(n){return n<=1?1:n*f(n-1)} f(15)"}`}}, {Usage: &model.Usage{InputTokens: 300, OutputTokens: 40}, FinishReason: model.FinishToolCalls}},
	{{TextDelta: "15! = 1307674368000"}, {Usage: &model.Usage{InputTokens: 400, OutputTokens: 12}, FinishReason: model.FinishStop}},
}

func (m *instantModel) Provider() string { return "openai" }
func (m *instantModel) Name() string     { return "gpt-5.4-mini" }
func (m *instantModel) Stream(context.Context, model.Request) iter.Seq2[model.Chunk, error] {
	turn := instantTurns[int(m.n.Add(1)-1)%2]
	return func(yield func(model.Chunk, error) bool) {
		for _, c := range turn {
			if !yield(c, nil) {
				return
			}
		}
	}
}

// discardExporter drops spans: what the SDK costs before any exporter.
type discardExporter struct{}

func (discardExporter) ExportSpans(context.Context, []sdktrace.ReadOnlySpan) error { return nil }
func (discardExporter) Shutdown(context.Context) error                             { return nil }

// BenchmarkTracingOverhead runs the whole Coder→Sandbox→Coder workflow
// (in-process sandbox, instant model, one tool call) with tracing off, to
// an exporter that drops spans (the SDK's own cost), to the in-memory
// exporter, and to the SQLite store, each behind the SDK's batch processor:
//
//	go test ./observe -run '^$' -bench TracingOverhead -benchmem -count 5 | tee /tmp/trace.txt
//	benchstat -col /tracing /tmp/trace.txt
func BenchmarkTracingOverhead(b *testing.B) {
	exec, err := sandbox.NewInProcess()
	if err != nil {
		b.Fatal(err)
	}
	tool, err := sandbox.NewTool(exec)
	if err != nil {
		b.Fatal(err)
	}
	ce, err := codeexec.New(codeexec.Config{Tool: tool})
	if err != nil {
		b.Fatal(err)
	}
	in := json.RawMessage(`{"message":"Calculate 15!"}`)
	run := func(b *testing.B, tp trace.TracerProvider, each func(i int)) {
		ctx := agent.WithTracerProvider(agent.WithModel(b.Context(), &instantModel{}), tp)
		i := 0
		for b.Loop() {
			if _, err := agent.Collect(ce.Run(ctx, in)); err != nil {
				b.Fatal(err)
			}
			i++
			if each != nil {
				each(i)
			}
		}
	}
	b.Run("tracing=off", func(b *testing.B) { run(b, noop.NewTracerProvider(), nil) })
	b.Run("tracing=discard", func(b *testing.B) {
		tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(discardExporter{}))
		defer tp.Shutdown(context.Background())
		run(b, tp, nil)
	})
	b.Run("tracing=memory", func(b *testing.B) {
		mem := tracetest.NewInMemoryExporter()
		tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(mem))
		defer tp.Shutdown(context.Background())
		run(b, tp, func(i int) {
			if i%1000 == 0 {
				mem.Reset()
			}
		})
	})
	b.Run("tracing=sqlite", func(b *testing.B) {
		st, err := store.Open(context.Background(), filepath.Join(b.TempDir(), "traces.db"))
		if err != nil {
			b.Fatal(err)
		}
		defer st.Close()
		tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(store.NewExporter(st), sdktrace.WithMaxQueueSize(8192)))
		run(b, tp, nil)
		b.StopTimer()
		if err := tp.Shutdown(context.Background()); err != nil {
			b.Fatal(err)
		}
	})
}
