package store_test

import (
	"context"
	"math"
	"slices"
	"testing"
	"time"

	"github.com/loomwork/loom/model/pricing"
	"github.com/loomwork/loom/observe/internal/fixture"
	"github.com/loomwork/loom/observe/store"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"
)

func spanNamed(t *testing.T, d store.TraceDetail, name string) store.Span {
	t.Helper()
	for _, s := range d.Spans {
		if s.Name == name {
			return s
		}
	}
	require.Failf(t, "no span", "trace has no span %q", name)
	return store.Span{}
}

func TestExporterStoresCoderSandboxTrace(t *testing.T) {
	ctx := context.Background()
	s := openTemp(t, store.Config{})
	start := time.Now().Add(-time.Hour).Truncate(time.Millisecond).UTC()
	export(t, s, fixture.Run{Seed: 7, Start: start})

	id := fixture.IDs(7).String()
	d, err := s.Trace(ctx, id)
	require.NoError(t, err)

	// Spans come back ordered by start time, with the tree intact.
	var names []string
	for _, sp := range d.Spans {
		names = append(names, sp.Name)
		require.Equal(t, id, sp.TraceID)
		require.Equal(t, fixture.Scope, sp.Scope)
	}
	require.Equal(t, []string{"invoke_agent coder", "chat gpt-4o-mini", "execute_tool evaluateJs",
		"invoke_agent evaluateJs", "sandbox.run", "chat gpt-4o-mini"}, names)
	root, chat := d.Spans[0], d.Spans[1]
	tool, toolAgent, sandbox := spanNamed(t, d, "execute_tool evaluateJs"), spanNamed(t, d, "invoke_agent evaluateJs"), spanNamed(t, d, "sandbox.run")
	require.Empty(t, root.ParentSpanID)
	require.Equal(t, root.SpanID, chat.ParentSpanID)
	require.Equal(t, root.SpanID, tool.ParentSpanID)
	require.Equal(t, tool.SpanID, toolAgent.ParentSpanID)
	require.Equal(t, toolAgent.SpanID, sandbox.ParentSpanID)
	require.Equal(t, "client", chat.Kind)
	require.Equal(t, "internal", sandbox.Kind)
	require.Equal(t, start, root.Start)
	require.Equal(t, 1412*time.Millisecond, root.Duration())

	// Attributes keep their JSON types.
	require.Equal(t, "chat", chat.Attributes["gen_ai.operation.name"])
	require.Equal(t, int64(120), chat.Attributes["gen_ai.usage.input_tokens"])
	require.Equal(t, 0.2, chat.Attributes["gen_ai.request.temperature"])
	require.Equal(t, []any{"tool_calls"}, chat.Attributes["gen_ai.response.finish_reasons"])
	require.Equal(t, false, tool.Attributes["loom.tool.is_error"])
	require.Equal(t, 0.0, toolAgent.Attributes["loom.cost.usd"], "an integral float stays a float")
	require.Equal(t, fixture.Code, sandbox.Attributes["loom.sandbox.code"])
	require.Equal(t, "3628800", sandbox.Attributes["loom.sandbox.result"])
	require.Equal(t, int64(len(fixture.Code)), sandbox.Attributes["loom.sandbox.code_bytes"])
	require.Equal(t, "unset", sandbox.Status)

	sum := d.Summary
	require.Equal(t, store.TraceSummary{
		TraceID: id, Agent: "coder", RootName: "invoke_agent coder",
		Input: "10! = ?", Output: "10! = 3628800", Status: "ok",
		Start: start, End: start.Add(1412 * time.Millisecond), DurationMS: 1412,
		Spans: 6, ModelCalls: 2, ToolCalls: 1,
		InputTokens: 300, OutputTokens: 54, CachedTokens: 64, TotalTokens: 354,
		CostUSD: sum.CostUSD, CostComplete: true, Seq: 1, RunID: "run-7",
	}, sum)
	want := (120*0.15 + 42*0.60 + 116*0.15 + 64*0.075 + 12*0.60) / 1e6
	require.InDelta(t, want, sum.CostUSD, 1e-12)
}

func TestSummaryByOutcome(t *testing.T) {
	tests := []struct {
		name             string
		run              fixture.Run
		status, errorMsg string
		errors           int64
		in, out          int64
		input            string
	}{
		{"ok", fixture.Run{}, "ok", "", 0, 300, 54, "10! = ?"},
		// The snippet's failure passes up through the sandbox run, its tool
		// agent and its tool call: one failed step, not three. The model
		// answered anyway, with no snippet having computed a value.
		{"sandbox error, answered anyway", fixture.Run{Outcome: fixture.SandboxError}, "no_answer",
			"sandbox: exception: ReferenceError: fact is not defined at <eval>:3:1", 1, 300, 54, "10! = ?"},
		// The model call failed, and the run with it: one failed step.
		{"model failure", fixture.Run{Outcome: fixture.Failed}, "error",
			"openai: 503 Service Unavailable: the server is overloaded", 1, 120, 42, "10! = ?"},
		{"no content captured", fixture.Run{NoContent: true}, "ok", "", 0, 300, 54, ""},
		{"custom agent and question", fixture.Run{Agent: "analyst", Question: "  sum\nof   squares  "}, "ok", "", 0, 300, 54, "sum of squares"},
	}
	for i, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := openTemp(t, store.Config{})
			tc.run.Seed = uint64(100 + i)
			export(t, s, tc.run)
			d, err := s.Trace(context.Background(), fixture.IDs(tc.run.Seed).String())
			require.NoError(t, err)
			sum := d.Summary
			require.Equal(t, tc.status, sum.Status)
			require.Equal(t, tc.errorMsg, sum.Error)
			require.Equal(t, tc.errors, sum.Errors)
			require.Equal(t, tc.in, sum.InputTokens)
			require.Equal(t, tc.out, sum.OutputTokens)
			require.Equal(t, tc.input, sum.Input)
			if tc.run.Agent != "" {
				require.Equal(t, tc.run.Agent, sum.Agent)
			}
		})
	}
}

func TestSummaryUpdatesAsSpansArrive(t *testing.T) {
	ctx := context.Background()
	s := openTemp(t, store.Config{})
	exp := store.NewExporter(s)
	spans := fixture.CoderSandbox(fixture.Run{Seed: 3}).Snapshots()
	id := fixture.IDs(3).String()

	// The nested tool agent arrives first: the trace is running, and the
	// only agent seen so far is evaluateJs.
	require.NoError(t, exp.ExportSpans(ctx, spans[:3]))
	d, err := s.Trace(ctx, id)
	require.NoError(t, err)
	require.Equal(t, "running", d.Summary.Status)
	require.Equal(t, "evaluateJs", d.Summary.Agent)
	require.Equal(t, int64(3), d.Summary.Spans)
	require.Equal(t, int64(162), d.Summary.TotalTokens)
	first := d.Summary.Seq

	// The rest, root included, in reverse order.
	rest := slices.Clone(spans[3:])
	slices.Reverse(rest)
	require.NoError(t, exp.ExportSpans(ctx, rest))
	d, err = s.Trace(ctx, id)
	require.NoError(t, err)
	require.Equal(t, "ok", d.Summary.Status)
	require.Equal(t, "coder", d.Summary.Agent)
	require.Equal(t, "10! = ?", d.Summary.Input)
	require.Equal(t, int64(6), d.Summary.Spans)
	require.Equal(t, int64(354), d.Summary.TotalTokens)
	require.Greater(t, d.Summary.Seq, first)

	// A retried export changes nothing.
	require.NoError(t, exp.ExportSpans(ctx, spans))
	again, err := s.Trace(ctx, id)
	require.NoError(t, err)
	require.Equal(t, d.Summary.Spans, again.Summary.Spans)
	require.Equal(t, d.Summary.TotalTokens, again.Summary.TotalTokens)
	require.InDelta(t, d.Summary.CostUSD, again.Summary.CostUSD, 1e-15)
	require.Len(t, again.Spans, 6)
}

func TestExporterShutdown(t *testing.T) {
	ctx := context.Background()
	s := openTemp(t, store.Config{})
	exp := store.NewExporter(s)
	require.NoError(t, exp.Shutdown(ctx))
	require.NoError(t, exp.Shutdown(ctx), "shutting down twice is fine")
	require.ErrorIs(t, exp.ExportSpans(ctx, fixture.CoderSandbox(fixture.Run{}).Snapshots()), store.ErrClosed)
	_, err := s.Traces(ctx, store.Query{})
	require.NoError(t, err, "an exporter that did not open the store leaves it open")

	owned, err := store.OpenExporter(ctx, store.Config{Path: t.TempDir() + "/owned.db"})
	require.NoError(t, err)
	require.NoError(t, owned.ExportSpans(ctx, fixture.CoderSandbox(fixture.Run{}).Snapshots()))
	require.NoError(t, owned.Shutdown(ctx))
	_, err = owned.Store().Traces(ctx, store.Query{})
	require.ErrorIs(t, err, store.ErrClosed, "an exporter that opened the store closes it")
}

func TestExporterUnderBatchProcessor(t *testing.T) {
	ctx := context.Background()
	s := openTemp(t, store.Config{})
	tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(store.NewExporter(s)))
	tracer := tp.Tracer("github.com/loomwork/loom")

	// The run's parent lives in another process: its span is the root.
	remote := trace.NewSpanContext(trace.SpanContextConfig{
		TraceID: fixture.IDs(42), SpanID: trace.SpanID{9, 9, 9, 9, 9, 9, 9, 9}, Remote: true, TraceFlags: trace.FlagsSampled,
	})
	rctx, run := tracer.Start(trace.ContextWithRemoteSpanContext(ctx, remote), "invoke_agent coder",
		trace.WithAttributes(attribute.String("gen_ai.operation.name", "invoke_agent"), attribute.String("gen_ai.agent.name", "coder")))
	_, chat := tracer.Start(rctx, "chat llama3.2", trace.WithSpanKind(trace.SpanKindClient), trace.WithAttributes(
		attribute.String("gen_ai.operation.name", "chat"), attribute.String("gen_ai.provider.name", "ollama"),
		attribute.String("gen_ai.request.model", "llama3.2"),
		attribute.Int64("gen_ai.usage.input_tokens", 10), attribute.Int64("gen_ai.usage.output_tokens", 5)))
	chat.End()
	run.RecordError(context.DeadlineExceeded)
	run.SetStatus(codes.Error, "agent: run timed out\nafter 30s")
	run.End()
	require.NoError(t, tp.ForceFlush(ctx))
	require.NoError(t, tp.Shutdown(ctx))

	d, err := s.Trace(ctx, fixture.IDs(42).String())
	require.NoError(t, err)
	require.Len(t, d.Spans, 2)
	require.Equal(t, "error", d.Summary.Status)
	require.Equal(t, "agent: run timed out", d.Summary.Error, "the first line of the root's message")
	require.Equal(t, "0909090909090909", d.Spans[0].ParentSpanID)
	require.Len(t, d.Spans[0].Events, 1)
	require.Equal(t, "exception", d.Spans[0].Events[0].Name)
	require.Equal(t, context.DeadlineExceeded.Error(), d.Spans[0].Events[0].Attributes["exception.message"])
	require.Equal(t, int64(15), d.Summary.TotalTokens)
	require.Zero(t, d.Summary.CostUSD)
	require.True(t, d.Summary.CostComplete, "ollama is known and free")
}

// chatStub is a lone root chat span for cost tests.
func chatStub(seed uint64, provider, model string, attrs ...attribute.KeyValue) tracetest.SpanStub {
	now := time.Now()
	return tracetest.SpanStub{
		Name: "chat " + model,
		SpanContext: trace.NewSpanContext(trace.SpanContextConfig{
			TraceID: fixture.IDs(seed), SpanID: trace.SpanID{1}, TraceFlags: trace.FlagsSampled,
		}),
		SpanKind: trace.SpanKindClient, StartTime: now, EndTime: now.Add(time.Second),
		Attributes: append([]attribute.KeyValue{
			attribute.String("gen_ai.operation.name", "chat"),
			attribute.String("gen_ai.provider.name", provider),
			attribute.String("gen_ai.request.model", model),
			attribute.Int64("gen_ai.usage.input_tokens", 1_000_000),
			attribute.Int64("gen_ai.usage.output_tokens", 1_000_000),
		}, attrs...),
	}
}

func TestCostFallsBackToPriceTable(t *testing.T) {
	custom := pricing.New(pricing.Entry{Provider: "acme", Model: "rocket", Price: pricing.Price{Input: 1, Output: 2}})
	tests := []struct {
		name     string
		prices   *pricing.Table
		stub     tracetest.SpanStub
		cost     float64
		complete bool
	}{
		{"span cost wins", nil, chatStub(1, "openai", "gpt-4o", attribute.Float64("loom.cost.usd", 0.5)), 0.5, true},
		{"built-in price", nil, chatStub(2, "openai", "gpt-4o-2024-08-06"), 12.5, true},
		{"unknown model", nil, chatStub(3, "openai", "my-finetune"), 0, false},
		{"custom table", custom, chatStub(4, "acme", "rocket"), 3, true},
		{"custom table replaces built-in", custom, chatStub(5, "openai", "gpt-4o"), 0, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := openTemp(t, store.Config{Prices: tc.prices})
			require.NoError(t, store.NewExporter(s).ExportSpans(context.Background(), tracetest.SpanStubs{tc.stub}.Snapshots()))
			p, err := s.Traces(context.Background(), store.Query{})
			require.NoError(t, err)
			require.Len(t, p.Traces, 1)
			require.InDelta(t, tc.cost, p.Traces[0].CostUSD, 1e-9)
			require.Equal(t, tc.complete, p.Traces[0].CostComplete)
		})
	}
}

func TestAttributeEncodingRoundTrip(t *testing.T) {
	ctx := context.Background()
	s := openTemp(t, store.Config{})
	stub := chatStub(9, "openai", "gpt-4o",
		attribute.String("text", "quote \" backslash \\ tab \t newline \n nul \x00 bad \xff line-sep \u2028 snow ☃"),
		attribute.Float64("nan", math.NaN()),
		attribute.Float64("inf", math.Inf(-1)),
		attribute.Float64("big", 1e300),
		attribute.Int64("max", math.MaxInt64),
		attribute.BoolSlice("bools", []bool{true, false}),
		attribute.Int64Slice("ints", []int64{1, -2}),
		attribute.Float64Slice("floats", []float64{1.5, 2}),
		attribute.String("dup", "first"),
		attribute.String("dup", "second"),
	)
	require.NoError(t, store.NewExporter(s).ExportSpans(ctx, tracetest.SpanStubs{stub}.Snapshots()))
	d, err := s.Trace(ctx, fixture.IDs(9).String())
	require.NoError(t, err)
	a := d.Spans[0].Attributes
	require.Equal(t, "quote \" backslash \\ tab \t newline \n nul \x00 bad \uFFFD line-sep \u2028 snow ☃", a["text"])
	require.Equal(t, "NaN", a["nan"])
	require.Equal(t, "-Inf", a["inf"])
	require.Equal(t, 1e300, a["big"])
	require.Equal(t, int64(math.MaxInt64), a["max"])
	require.Equal(t, []any{true, false}, a["bools"])
	require.Equal(t, []any{int64(1), int64(-2)}, a["ints"])
	require.Equal(t, []any{1.5, 2.0}, a["floats"])
	require.Equal(t, "second", a["dup"], "the last value of a key wins")
}
