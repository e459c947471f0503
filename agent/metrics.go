package agent

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/loomwork/loom/model"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
)

// Metrics holds loom's OpenTelemetry instruments: the GenAI client metrics
// (operation duration, token usage), tool calls, sandbox runs and workflow
// outcomes. Create it once per meter provider with [NewMetrics] and put it
// on the context with [WithMetrics]; without it nothing is measured.
type Metrics struct {
	// OperationDuration is gen_ai.client.operation.duration, in seconds.
	OperationDuration metric.Float64Histogram
	// TokenUsage is gen_ai.client.token.usage, by gen_ai.token.type.
	TokenUsage metric.Int64Histogram
	// ToolCalls is loom.tool.calls, by tool name and is_error.
	ToolCalls metric.Int64Counter
	// SandboxRuns is loom.sandbox.runs, by executor, outcome and error kind.
	SandboxRuns metric.Int64Counter
	// SandboxDuration is loom.sandbox.duration, in seconds.
	SandboxDuration metric.Float64Histogram
	// WorkflowOutcomes is loom.workflow.outcomes, by outcome (answered,
	// failed, limit).
	WorkflowOutcomes metric.Int64Counter
}

// NewMetrics creates the instruments on mp's meter for loom's scope.
func NewMetrics(mp metric.MeterProvider) (*Metrics, error) {
	m := mp.Meter(Scope)
	var ms Metrics
	var errs []error
	add := func(err error) { errs = append(errs, err) }
	var err error
	ms.OperationDuration, err = m.Float64Histogram("gen_ai.client.operation.duration", metric.WithUnit("s"),
		metric.WithDescription("GenAI operation duration."),
		metric.WithExplicitBucketBoundaries(0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12, 10.24, 20.48, 40.96, 81.92))
	add(err)
	ms.TokenUsage, err = m.Int64Histogram("gen_ai.client.token.usage", metric.WithUnit("{token}"),
		metric.WithDescription("Measures number of input and output tokens used."),
		metric.WithExplicitBucketBoundaries(1, 4, 16, 64, 256, 1024, 4096, 16384, 65536, 262144, 1048576, 4194304))
	add(err)
	ms.ToolCalls, err = m.Int64Counter("loom.tool.calls", metric.WithDescription("Tool calls made by AI agents."))
	add(err)
	ms.SandboxRuns, err = m.Int64Counter("loom.sandbox.runs", metric.WithDescription("Sandbox runs, by outcome and error kind."))
	add(err)
	ms.SandboxDuration, err = m.Float64Histogram("loom.sandbox.duration", metric.WithUnit("s"), metric.WithDescription("Sandbox run duration."))
	add(err)
	ms.WorkflowOutcomes, err = m.Int64Counter("loom.workflow.outcomes", metric.WithDescription("Workflow runs by outcome: answered, failed, limit."))
	add(err)
	if err := errors.Join(errs...); err != nil {
		return nil, fmt.Errorf("agent: create metrics: %w", err)
	}
	return &ms, nil
}

type metricsKey struct{}

// WithMetrics returns ctx whose runs record to ms.
func WithMetrics(ctx context.Context, ms *Metrics) context.Context {
	return context.WithValue(ctx, metricsKey{}, ms)
}

// MetricsFrom returns the instruments on ctx, or nil (also when telemetry
// is off, [WithTelemetry]).
func MetricsFrom(ctx context.Context) *Metrics {
	if telemetryOff(ctx) {
		return nil
	}
	ms, _ := ctx.Value(metricsKey{}).(*Metrics)
	return ms
}

func recordChat(ctx context.Context, m model.Model, start time.Time, resp *model.Response, err error) {
	ms := MetricsFrom(ctx)
	if ms == nil {
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
	ms.OperationDuration.Record(ctx, time.Since(start).Seconds(), metric.WithAttributes(attrs...))
	if err != nil || resp == nil {
		return
	}
	ms.TokenUsage.Record(ctx, resp.Usage.InputTokens, metric.WithAttributes(append(attrs, attribute.String("gen_ai.token.type", "input"))...))
	ms.TokenUsage.Record(ctx, resp.Usage.OutputTokens, metric.WithAttributes(append(attrs, attribute.String("gen_ai.token.type", "output"))...))
}

func recordToolCall(ctx context.Context, name string, isError bool) {
	if ms := MetricsFrom(ctx); ms != nil {
		ms.ToolCalls.Add(ctx, 1, metric.WithAttributes(attribute.String("gen_ai.tool.name", name), attribute.Bool("loom.tool.is_error", isError)))
	}
}
