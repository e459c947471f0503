package observe_test

import (
	"github.com/loomwork/loom/agent/agentrt"
	"github.com/loomwork/loom/model/modeltest"
	"github.com/loomwork/loom/observe/internal/coderrun"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"
	"strings"
	"testing"
)

const factorial = coderrun.Factorial

// coderRun runs the Coder→Sandbox workflow, recording spans to tp.
var coderRun = coderrun.Run

type spanTree struct {
	spans []sdktrace.ReadOnlySpan
	byID  map[trace.SpanID]sdktrace.ReadOnlySpan
}

func newSpanTree(spans []sdktrace.ReadOnlySpan) spanTree {
	st := spanTree{spans: spans, byID: map[trace.SpanID]sdktrace.ReadOnlySpan{}}
	for _, s := range spans {
		st.byID[s.SpanContext().SpanID()] = s
	}
	return st
}

// named returns the spans with this name, in end order.
func (st spanTree) named(name string) []sdktrace.ReadOnlySpan {
	var out []sdktrace.ReadOnlySpan
	for _, s := range st.spans {
		if s.Name() == name {
			out = append(out, s)
		}
	}
	return out
}

// path returns the names from the root down to s.
func (st spanTree) path(s sdktrace.ReadOnlySpan) []string {
	var names []string
	for s != nil {
		names = append([]string{s.Name()}, names...)
		s = st.byID[s.Parent().SpanID()]
	}
	return names
}

func spanAttrs(s sdktrace.ReadOnlySpan) map[attribute.Key]attribute.Value {
	m := map[attribute.Key]attribute.Value{}
	for _, kv := range s.Attributes() {
		m[kv.Key] = kv.Value
	}
	return m
}

func TestCoderSandboxSpanTree(t *testing.T) {
	for _, capture := range []bool{false, true} {
		t.Run(map[bool]string{false: "content off", true: "content on"}[capture], func(t *testing.T) {
			rec := tracetest.NewSpanRecorder()
			tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
			res := coderRun(t, tp, capture,
				modeltest.ToolCalls(modeltest.Call("call_1", "evaluateJs", `{"code":"`+factorial+`"}`)).WithUsage(300, 40),
				modeltest.Text("15! = 1307674368000").WithUsage(400, 12),
			)
			require.Contains(t, string(res.Output), "1307674368000")
			st := newSpanTree(rec.Ended())

			roots := 0
			for _, s := range st.spans {
				if !s.Parent().IsValid() {
					roots++
					require.Equal(t, "invoke_agent code_execution", s.Name())
				}
				require.Equal(t, st.spans[0].SpanContext().TraceID(), s.SpanContext().TraceID(), "one trace")
			}
			require.Equal(t, 1, roots)

			chats := st.named("chat scripted")
			require.Len(t, chats, 2)
			for _, c := range chats {
				require.Equal(t, []string{"invoke_agent code_execution", "invoke_agent coder", "chat scripted"}, st.path(c))
				a := spanAttrs(c)
				require.Equal(t, "chat", a["gen_ai.operation.name"].AsString())
				require.Equal(t, "modeltest", a["gen_ai.provider.name"].AsString())
				require.Equal(t, "scripted", a["gen_ai.request.model"].AsString())
				require.Equal(t, trace.SpanKindClient, c.SpanKind())
			}
			first := spanAttrs(chats[0])
			require.Equal(t, int64(300), first["gen_ai.usage.input_tokens"].AsInt64())
			require.Equal(t, []string{"tool_calls"}, first["gen_ai.response.finish_reasons"].AsStringSlice())

			sbx := st.named("sandbox.run")
			require.Len(t, sbx, 1)
			path := st.path(sbx[0])
			require.Equal(t, "execute_tool evaluateJs", path[2])
			require.Equal(t, "sandbox.run", path[len(path)-1])
			require.Contains(t, path[len(path)-2], "invoke_agent evaluateJs")
			sa := spanAttrs(sbx[0])
			require.Equal(t, "goja", sa["loom.sandbox.executor"].AsString())
			require.Equal(t, int64(len(factorial)), sa["loom.sandbox.code_bytes"].AsInt64())
			require.Equal(t, "ok", sa["loom.sandbox.outcome"].AsString())
			require.Greater(t, sa["loom.sandbox.duration_ms"].AsFloat64(), 0.0)

			tool := st.named("execute_tool evaluateJs")[0]
			ta := spanAttrs(tool)
			require.Equal(t, "call_1", ta["gen_ai.tool.call.id"].AsString())
			require.Equal(t, "evaluateJs", ta["gen_ai.tool.name"].AsString())

			root := spanAttrs(st.named("invoke_agent code_execution")[0])
			require.Equal(t, "answered", root["loom.workflow.outcome"].AsString())
			require.Equal(t, int64(700), root["gen_ai.usage.input_tokens"].AsInt64(), "usage totals over the whole run")
			require.Equal(t, int64(52), root["gen_ai.usage.output_tokens"].AsInt64())

			// Content only when opted in.
			contentKeys := []struct {
				span sdktrace.ReadOnlySpan
				key  attribute.Key
			}{
				{sbx[0], "loom.sandbox.code"}, {sbx[0], "loom.sandbox.result"},
				{chats[0], "gen_ai.input.messages"}, {chats[1], "gen_ai.output.messages"},
				{tool, "gen_ai.tool.call.arguments"}, {tool, "gen_ai.tool.call.result"},
			}
			for _, c := range contentKeys {
				_, has := spanAttrs(c.span)[c.key]
				require.Equal(t, capture, has, "%s on %s", c.key, c.span.Name())
			}
			if capture {
				require.Equal(t, factorial, sa["loom.sandbox.code"].AsString())
				require.Equal(t, "1307674368000", sa["loom.sandbox.result"].AsString())
				require.Equal(t, "[]", sa["loom.sandbox.logs"].AsString(), "no console lines is an empty list")
				require.Contains(t, spanAttrs(chats[1])["gen_ai.output.messages"].AsString(), "15! = 1307674368000")
			}
		})
	}
}

func TestCoderSandboxErrorSpans(t *testing.T) {
	rec := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
	long := "/*" + strings.Repeat("x", agentrt.MaxCapturedBytes) + "*/ "
	coderRun(t, tp, true,
		modeltest.ToolCalls(modeltest.Call("call_1", "evaluateJs", `{"code":"`+long+`throw new RangeError('bad n')"}`)),
		modeltest.ToolCalls(modeltest.Call("call_2", "evaluateJs", `{"code":"`+factorial+`"}`)),
		modeltest.Text("15! = 1307674368000"),
	)
	st := newSpanTree(rec.Ended())
	sbx := st.named("sandbox.run")
	require.Len(t, sbx, 2)
	failed := sbx[0]
	fa := spanAttrs(failed)
	require.Equal(t, "error", fa["loom.sandbox.outcome"].AsString())
	require.Equal(t, "exception", fa["loom.sandbox.error_kind"].AsString())
	require.Equal(t, codes.Error, failed.Status().Code)
	require.Contains(t, failed.Status().Description, "bad n")
	code := fa["loom.sandbox.code"].AsString()
	require.Contains(t, code, "…[truncated", "captured code is bounded")
	require.LessOrEqual(t, len(code), agentrt.MaxCapturedBytes+64)

	tools := st.named("execute_tool evaluateJs")
	require.Len(t, tools, 2)
	require.True(t, spanAttrs(tools[0])["loom.tool.is_error"].AsBool())
	require.Equal(t, codes.Error, tools[0].Status().Code)
	require.False(t, spanAttrs(tools[1])["loom.tool.is_error"].AsBool())
	require.Equal(t, "ok", spanAttrs(sbx[1])["loom.sandbox.outcome"].AsString())
	// The run still ends with an answer.
	require.Equal(t, "answered", spanAttrs(st.named("invoke_agent code_execution")[0])["loom.workflow.outcome"].AsString())
}

func TestCoderSandboxSpansUnderParallelRuns(t *testing.T) {
	rec := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
	const runs = 8
	done := make(chan struct{}, runs)
	for range runs {
		go func() {
			defer func() { done <- struct{}{} }()
			coderRun(t, tp, false,
				modeltest.ToolCalls(modeltest.Call("call_1", "evaluateJs", `{"code":"`+factorial+`"}`)),
				modeltest.Text("15! = 1307674368000"),
			)
		}()
	}
	for range runs {
		<-done
	}
	st := newSpanTree(rec.Ended())
	traces := map[trace.TraceID]int{}
	for _, s := range st.spans {
		traces[s.SpanContext().TraceID()]++
		if s.Parent().IsValid() {
			parent, ok := st.byID[s.Parent().SpanID()]
			require.True(t, ok, "%s has a parent that was recorded", s.Name())
			require.Equal(t, parent.SpanContext().TraceID(), s.SpanContext().TraceID(), "a span's parent is in its own run's trace")
		}
	}
	require.Len(t, traces, runs, "each run is its own trace")
	for _, n := range traces {
		require.Equal(t, traces[st.spans[0].SpanContext().TraceID()], n, "every run has the same span tree")
	}
	for _, s := range st.named("sandbox.run") {
		require.Equal(t, "sandbox.run", st.path(s)[len(st.path(s))-1])
		require.Equal(t, "invoke_agent code_execution", st.path(s)[0])
	}
}
