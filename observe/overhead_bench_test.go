package observe_test

import (
	"context"
	"encoding/json"
	"iter"
	"path/filepath"
	"sync/atomic"
	"testing"

	"github.com/loomwork/loom/agent"

	"github.com/loomwork/loom/agent/agentrt"
	"github.com/loomwork/loom/codeexec"
	"github.com/loomwork/loom/internal/cputime"
	"github.com/loomwork/loom/model"
	"github.com/loomwork/loom/observe"
	"github.com/loomwork/loom/observe/store"
	"github.com/loomwork/loom/sandbox"
	"github.com/loomwork/loom/sandbox/jstool"
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
// exporter, and to the SQLite store, each behind the SDK's batch span
// processor (batch=sdk) and behind loom's [observe.BatchProcessor]
// (batch=loom), and to the SQLite store through loom's own tracer provider
// (batch=native, what [observe.Setup] uses for the store):
//
//	go test ./observe -run '^$' -bench TracingOverhead -benchmem -count 5 | tee /tmp/trace.txt
//	benchstat -col /tracing /tmp/trace.txt
func BenchmarkTracingOverhead(b *testing.B) {
	exec, err := sandbox.NewInProcess(sandbox.InProcessConfig{})
	if err != nil {
		b.Fatal(err)
	}
	tool, err := jstool.New(exec, jstool.Config{})
	if err != nil {
		b.Fatal(err)
	}
	ce, err := codeexec.New(codeexec.Config{Tool: tool})
	if err != nil {
		b.Fatal(err)
	}
	in := json.RawMessage(`{"message":"Calculate 15!"}`)
	run := func(b *testing.B, tp trace.TracerProvider) {
		ctx := agentrt.WithTracerProvider(agent.WithEnv(b.Context(), agent.Env{Model: &instantModel{}}), tp)
		cpu0 := cputime.Process()
		for b.Loop() {
			if _, err := agent.Collect(ce.Run(ctx, in)); err != nil {
				b.Fatal(err)
			}
		}
		// The spans still queued are written before the CPU time is
		// read, so that it holds the writes of every run, not only of
		// the batches that filled up during the loop.
		if f, ok := tp.(interface{ ForceFlush(context.Context) error }); ok {
			if err := f.ForceFlush(context.Background()); err != nil {
				b.Fatal(err)
			}
		}
		// The process's CPU time per run, the exporter's goroutine and the
		// collector included: steadier than ns/op on a busy machine.
		b.ReportMetric(float64(cputime.Process()-cpu0)/float64(b.N), "cpu-ns/op")
	}
	// traced runs the workflow with exp behind each batch processor.
	traced := func(b *testing.B, exp func(b *testing.B) sdktrace.SpanExporter) {
		b.Run("batch=sdk", func(b *testing.B) {
			tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(exp(b), sdktrace.WithMaxQueueSize(observe.DefaultMaxQueue)))
			run(b, tp)
			b.StopTimer()
			if err := tp.Shutdown(context.Background()); err != nil {
				b.Fatal(err)
			}
		})
		b.Run("batch=loom", func(b *testing.B) {
			bp, err := observe.NewBatchProcessor(exp(b), observe.BatchConfig{})
			if err != nil {
				b.Fatal(err)
			}
			tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(bp))
			run(b, tp)
			b.StopTimer()
			if err := tp.Shutdown(context.Background()); err != nil {
				b.Fatal(err)
			}
			if n := bp.Dropped(); n > 0 {
				b.Fatalf("%d spans dropped", n)
			}
		})
	}
	openStore := func(b *testing.B) *store.Store {
		st, err := store.Open(context.Background(), store.Config{Path: filepath.Join(b.TempDir(), "traces.db")})
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { st.Close() })
		return st
	}
	// native runs the workflow with loom's own tracer provider.
	native := func(b *testing.B, newTP func(b *testing.B) (*observe.TracerProvider, error)) {
		b.Run("batch=native", func(b *testing.B) {
			tp, err := newTP(b)
			if err != nil {
				b.Fatal(err)
			}
			run(b, tp)
			b.StopTimer()
			if err := tp.Shutdown(context.Background()); err != nil {
				b.Fatal(err)
			}
			if n := tp.Dropped(); n > 0 {
				b.Fatalf("%d spans dropped", n)
			}
		})
	}
	b.Run("tracing=off", func(b *testing.B) { run(b, noop.NewTracerProvider()) })
	b.Run("tracing=discard", func(b *testing.B) {
		traced(b, func(*testing.B) sdktrace.SpanExporter { return discardExporter{} })
		native(b, func(b *testing.B) (*observe.TracerProvider, error) {
			// One run written first fills the store's cache of shared
			// texts, as in a process that has written before.
			st := openStore(b)
			warm, err := observe.NewTracerProvider(st, observe.BatchConfig{}, false)
			if err != nil {
				return nil, err
			}
			ctx := agentrt.WithTracerProvider(agent.WithEnv(context.Background(), agent.Env{Model: &instantModel{}}), warm)
			if _, err := agent.Collect(ce.Run(ctx, in)); err != nil {
				return nil, err
			}
			if err := warm.Shutdown(context.Background()); err != nil {
				return nil, err
			}
			return observe.NewDiscardingTracerProvider(st)
		})
	})
	b.Run("tracing=memory", func(b *testing.B) {
		traced(b, func(*testing.B) sdktrace.SpanExporter {
			return &resettingExporter{mem: tracetest.NewInMemoryExporter()}
		})
	})
	b.Run("tracing=sqlite", func(b *testing.B) {
		traced(b, func(b *testing.B) sdktrace.SpanExporter { return store.NewExporter(openStore(b)) })
		// What observe.Setup uses for the store.
		native(b, func(b *testing.B) (*observe.TracerProvider, error) {
			return observe.NewTracerProvider(openStore(b), observe.BatchConfig{}, false)
		})
	})
}

// resettingExporter keeps at most a few thousand spans in memory.
type resettingExporter struct {
	mem *tracetest.InMemoryExporter
	n   int
}

func (e *resettingExporter) ExportSpans(ctx context.Context, spans []sdktrace.ReadOnlySpan) error {
	if e.n += len(spans); e.n > 8192 {
		e.mem.Reset()
		e.n = len(spans)
	}
	return e.mem.ExportSpans(ctx, spans)
}

func (e *resettingExporter) Shutdown(ctx context.Context) error { return e.mem.Shutdown(ctx) }
