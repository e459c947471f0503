package agent

import (
	"context"
	"time"

	"github.com/loomwork/loom/internal/telemetry"
	"github.com/loomwork/loom/model"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
)

// instrumentsFrom returns the AI instruments of the meters on ctx
// (agentrt.WithMetrics), or ok false when nothing is measured.
func instrumentsFrom(ctx context.Context) (telemetry.AIInstruments, bool) {
	ins, ok, _ := telemetry.AIInstrumentsOf(telemetry.MetersFrom(ctx))
	return ins, ok
}

func recordChat(ctx context.Context, m model.Model, start time.Time, resp *model.Response, err error) {
	ms, ok := instrumentsFrom(ctx)
	if !ok {
		return
	}
	attrs := []attribute.KeyValue{
		attribute.String("gen_ai.operation.name", "chat"),
		attribute.String("gen_ai.provider.name", m.Provider()),
		attribute.String("gen_ai.request.model", m.Name()),
	}
	if err != nil {
		attrs = append(attrs, attribute.String("error.type", errorType(err)))
	}
	ms.OperationDuration.Record(ctx, since(ctx, start).Seconds(), metric.WithAttributes(attrs...))
	if err != nil || resp == nil {
		return
	}
	ms.TokenUsage.Record(ctx, resp.Usage.InputTokens, metric.WithAttributes(append(attrs, attribute.String("gen_ai.token.type", "input"))...))
	ms.TokenUsage.Record(ctx, resp.Usage.OutputTokens, metric.WithAttributes(append(attrs, attribute.String("gen_ai.token.type", "output"))...))
}

func recordToolCall(ctx context.Context, name string, isError bool) {
	if ms, ok := instrumentsFrom(ctx); ok {
		ms.ToolCalls.Add(ctx, 1, metric.WithAttributes(attribute.String("gen_ai.tool.name", name), attribute.Bool("loom.tool.is_error", isError)))
	}
}
