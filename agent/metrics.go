package agent

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/loomwork/loom/internal/telemetry"
	"github.com/loomwork/loom/model"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
)

// Metrics is where loom's runs record their OpenTelemetry metrics: the
// GenAI client metrics (gen_ai.client.operation.duration,
// gen_ai.client.token.usage), loom.tool.calls, loom.guardrail.checks, and
// the instruments other loom packages own (loom.sandbox.runs and
// loom.sandbox.duration in package sandbox, loom.workflow.outcomes in
// package engine). Create it once per
// meter provider with [NewMetrics] and put it on the context with
// [WithMetrics]; without it nothing is measured.
type Metrics struct {
	meters *telemetry.Meters
}

// aiInstruments are the instruments package agent owns.
type aiInstruments struct {
	operationDuration metric.Float64Histogram
	tokenUsage        metric.Int64Histogram
	toolCalls         metric.Int64Counter
}

type aiInstrumentsKey struct{}

func buildAIInstruments(m metric.Meter) (aiInstruments, error) {
	var ins aiInstruments
	var errs []error
	var err error
	ins.operationDuration, err = m.Float64Histogram("gen_ai.client.operation.duration", metric.WithUnit("s"),
		metric.WithDescription("GenAI operation duration."),
		metric.WithExplicitBucketBoundaries(0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12, 10.24, 20.48, 40.96, 81.92))
	errs = append(errs, err)
	ins.tokenUsage, err = m.Int64Histogram("gen_ai.client.token.usage", metric.WithUnit("{token}"),
		metric.WithDescription("Measures number of input and output tokens used."),
		metric.WithExplicitBucketBoundaries(1, 4, 16, 64, 256, 1024, 4096, 16384, 65536, 262144, 1048576, 4194304))
	errs = append(errs, err)
	ins.toolCalls, err = m.Int64Counter("loom.tool.calls", metric.WithDescription("Tool calls made by AI agents."))
	errs = append(errs, err)
	if err := errors.Join(errs...); err != nil {
		return ins, fmt.Errorf("agent: create metrics: %w", err)
	}
	return ins, nil
}

// NewMetrics returns the metrics of mp, for loom's scope, with package
// agent's instruments made at once (so an error shows here).
func NewMetrics(mp metric.MeterProvider) (*Metrics, error) {
	ms := &Metrics{meters: telemetry.NewMeters(mp)}
	if _, _, err := telemetry.Instruments(ms.meters, aiInstrumentsKey{}, buildAIInstruments); err != nil {
		return nil, err
	}
	return ms, nil
}

// WithMetrics returns ctx whose runs record to ms.
func WithMetrics(ctx context.Context, ms *Metrics) context.Context {
	if ms == nil {
		return ctx
	}
	return telemetry.WithMeters(ctx, ms.meters)
}

func instrumentsFrom(ctx context.Context) (aiInstruments, bool) {
	ins, ok, _ := telemetry.Instruments(telemetry.MetersFrom(ctx), aiInstrumentsKey{}, buildAIInstruments)
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
	ms.operationDuration.Record(ctx, Since(ctx, start).Seconds(), metric.WithAttributes(attrs...))
	if err != nil || resp == nil {
		return
	}
	ms.tokenUsage.Record(ctx, resp.Usage.InputTokens, metric.WithAttributes(append(attrs, attribute.String("gen_ai.token.type", "input"))...))
	ms.tokenUsage.Record(ctx, resp.Usage.OutputTokens, metric.WithAttributes(append(attrs, attribute.String("gen_ai.token.type", "output"))...))
}

func recordToolCall(ctx context.Context, name string, isError bool) {
	if ms, ok := instrumentsFrom(ctx); ok {
		ms.toolCalls.Add(ctx, 1, metric.WithAttributes(attribute.String("gen_ai.tool.name", name), attribute.Bool("loom.tool.is_error", isError)))
	}
}
