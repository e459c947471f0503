package agent_test

import (
	"context"
	"strings"
	"testing"

	"github.com/loomwork/loom/agent"

	"github.com/loomwork/loom/agent/agentrt"
	"github.com/loomwork/loom/internal/testkit"
	"github.com/loomwork/loom/model"
	"github.com/loomwork/loom/model/modeltest"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
)

func attrs(s sdktrace.ReadOnlySpan) map[attribute.Key]attribute.Value {
	m := map[attribute.Key]attribute.Value{}
	for _, kv := range s.Attributes() {
		m[kv.Key] = kv.Value
	}
	return m
}

type gptModel struct{ *modeltest.Scripted }

func (gptModel) Provider() string { return "openai" }
func (gptModel) Name() string     { return "gpt-4o-mini" }

func tracedRun(t *testing.T, capture bool, args string) (map[string]sdktrace.ReadOnlySpan, []sdktrace.ReadOnlySpan) {
	rec := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
	m := gptModel{modeltest.New(t,
		modeltest.ToolCalls(modeltest.Call("call_1", "add", args)).WithUsage(1000, 100),
		modeltest.Text("5").WithUsage(2000, 10),
	)}
	a := testkit.NewAI(t, agent.AIConfig{Name: "calc", Description: "Calculates.", Model: m, Tools: []agent.Agent{addTool(t)}, Options: model.Options{Temperature: model.Ptr(0.3)}})
	ctx := agentrt.WithContentCapture(agentrt.WithTracerProvider(t.Context(), tp), capture)
	_, err := agent.Invoke(ctx, a, "2+3")
	require.NoError(t, err)
	spans := rec.Ended()
	byName := map[string]sdktrace.ReadOnlySpan{}
	for _, s := range spans {
		byName[s.Name()] = s
	}
	return byName, spans
}

func TestTracingSpanTree(t *testing.T) {
	byName, spans := tracedRun(t, false, `{"a":2,"b":3}`)
	require.Len(t, spans, 5, "agent, 2 chats, tool, tool agent")
	root := byName["invoke_agent calc"]
	chat := byName["chat gpt-4o-mini"]
	tool := byName["execute_tool add"]
	toolAgent := byName["invoke_agent add"]
	require.NotNil(t, root)
	require.NotNil(t, chat)
	require.NotNil(t, tool)
	require.NotNil(t, toolAgent)
	require.False(t, root.Parent().IsValid())
	require.Equal(t, root.SpanContext().SpanID(), chat.Parent().SpanID())
	require.Equal(t, root.SpanContext().SpanID(), tool.Parent().SpanID())
	require.Equal(t, tool.SpanContext().SpanID(), toolAgent.Parent().SpanID())

	ra := attrs(root)
	require.Equal(t, "stop", ra["loom.finish_reason"].AsString(), "the agent span says why the model stopped")
	require.Equal(t, "invoke_agent", ra["gen_ai.operation.name"].AsString())
	require.Equal(t, "calc", ra["gen_ai.agent.name"].AsString())
	require.Equal(t, "ai", ra["loom.agent.kind"].AsString())
	require.Equal(t, int64(3000), ra["gen_ai.usage.input_tokens"].AsInt64())
	require.Equal(t, int64(110), ra["gen_ai.usage.output_tokens"].AsInt64())
	require.Greater(t, ra["loom.cost.usd"].AsFloat64(), 0.0, "gpt-4o-mini is in the price table")
	_, captured := ra["loom.agent.input"]
	require.False(t, captured, "content is not recorded unless opted in")

	ca := attrs(chat)
	require.Equal(t, "chat", ca["gen_ai.operation.name"].AsString())
	require.Equal(t, "openai", ca["gen_ai.provider.name"].AsString())
	require.Equal(t, "gpt-4o-mini", ca["gen_ai.request.model"].AsString())
	require.Equal(t, 0.3, ca["gen_ai.request.temperature"].AsFloat64())
	_, hasTopP := ca["gen_ai.request.top_p"]
	require.False(t, hasTopP, "unset options are not recorded")
	_, hasInput := ca["gen_ai.input.messages"]
	require.False(t, hasInput)

	ta := attrs(tool)
	require.Equal(t, "execute_tool", ta["gen_ai.operation.name"].AsString())
	require.Equal(t, "add", ta["gen_ai.tool.name"].AsString())
	require.Equal(t, "call_1", ta["gen_ai.tool.call.id"].AsString())
	require.False(t, ta["loom.tool.is_error"].AsBool())
}

func TestTracingContentCaptureAndErrors(t *testing.T) {
	long := strings.Repeat("x", agentrt.MaxCapturedBytes+100)
	byName, spans := tracedRun(t, true, `{"a":2,"b":"`+long+`"}`)
	root := attrs(byName["invoke_agent calc"])
	require.JSONEq(t, `{"message":"2+3"}`, root["loom.agent.input"].AsString())
	require.JSONEq(t, `{"message":"5"}`, root["loom.agent.output"].AsString())
	var inputs []string
	for _, s := range spans {
		if s.Name() == "chat gpt-4o-mini" {
			inputs = append(inputs, attrs(s)["gen_ai.input.messages"].AsString())
		}
	}
	require.Len(t, inputs, 2)
	require.Contains(t, inputs[0], `"content":"2+3"`)
	require.True(t, strings.HasPrefix(inputs[1], "…[truncated 2 earlier messages] [{\"role\":\"tool\""),
		"the second call keeps the newest messages that fit: got %.80q", inputs[1])

	tool := byName["execute_tool add"]
	ta := attrs(tool)
	args := ta["gen_ai.tool.call.arguments"].AsString()
	require.True(t, strings.HasSuffix(args, "…[truncated 114 bytes]"), "got %q", args[len(args)-40:])
	require.Len(t, args, agentrt.MaxCapturedBytes+len("…[truncated 114 bytes]"))
	require.True(t, ta["loom.tool.is_error"].AsBool())
	require.Equal(t, codes.Error, tool.Status().Code)

	toolAgent := byName["invoke_agent add"]
	require.Equal(t, codes.Error, toolAgent.Status().Code)
	require.Equal(t, "validation", attrs(toolAgent)["error.type"].AsString())
	require.NotEmpty(t, toolAgent.Events(), "the error is recorded as a span event")
}

func TestMetricsRecorded(t *testing.T) {
	reader := sdkmetric.NewManualReader()
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))
	ms, err := agentrt.NewMetrics(mp)
	require.NoError(t, err)
	m := modeltest.New(t, modeltest.ToolCalls(modeltest.Call("c1", "add", `{"a":1,"b":2}`)).WithUsage(10, 2), modeltest.Text("3").WithUsage(20, 1))
	a := testkit.NewAI(t, agent.AIConfig{Name: "calc", Model: m, Tools: []agent.Agent{addTool(t)}})
	_, err = agent.Invoke(agentrt.WithMetrics(t.Context(), ms), a, "1+2")
	require.NoError(t, err)
	var rm metricdata.ResourceMetrics
	require.NoError(t, reader.Collect(context.Background(), &rm))
	got := map[string]metricdata.Aggregation{}
	for _, sm := range rm.ScopeMetrics {
		for _, mt := range sm.Metrics {
			got[mt.Name] = mt.Data
		}
	}
	dur := got["gen_ai.client.operation.duration"].(metricdata.Histogram[float64])
	require.Equal(t, uint64(2), dur.DataPoints[0].Count, "two model calls")
	tokens := got["gen_ai.client.token.usage"].(metricdata.Histogram[int64])
	var sum int64
	for _, dp := range tokens.DataPoints {
		sum += dp.Sum
	}
	require.Equal(t, int64(33), sum)
	calls := got["loom.tool.calls"].(metricdata.Sum[int64])
	require.Equal(t, int64(1), calls.DataPoints[0].Value)
}

func TestTracingUnknownPriceLeavesCostOut(t *testing.T) {
	rec := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
	a := testkit.NewAI(t, agent.AIConfig{Name: "x", Model: modeltest.New(t, modeltest.Text("hi").WithUsage(10, 2))})
	_, err := agent.Invoke(agentrt.WithTracerProvider(t.Context(), tp), a, "hi")
	require.NoError(t, err)
	for _, s := range rec.Ended() {
		_, has := attrs(s)["loom.cost.usd"]
		require.False(t, has, "%s: the scripted model has no price, so no cost is claimed", s.Name())
	}
}
