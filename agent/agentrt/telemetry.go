package agentrt

import (
	"context"

	"github.com/loomwork/loom/internal/telemetry"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/trace"
)

// Scope is the OpenTelemetry instrumentation scope of loom's spans and
// metrics.
const Scope = telemetry.Scope

// CaptureContentEnv is the standard variable that opts in to recording
// message content (prompts, answers, code, tool results) on spans.
const CaptureContentEnv = telemetry.CaptureContentEnv

// MaxCapturedBytes bounds each captured content attribute; longer values are
// truncated with a marker.
const MaxCapturedBytes = telemetry.MaxCapturedBytes

// WithTracerProvider returns ctx whose runs record spans to tp. Without it,
// runs use otel's global provider, which records nothing unless the program
// set one.
func WithTracerProvider(ctx context.Context, tp trace.TracerProvider) context.Context {
	return telemetry.WithTracerProvider(ctx, tp)
}

// WithContentCapture returns ctx whose spans record message content (on) or
// not (off), whatever CaptureContentEnv says.
func WithContentCapture(ctx context.Context, on bool) context.Context {
	return telemetry.WithContentCapture(ctx, on)
}

// WithTelemetry returns ctx under which runs record spans and metrics (on,
// the default) or not (off), as a durable engine does while it replays.
func WithTelemetry(ctx context.Context, on bool) context.Context {
	return telemetry.WithOff(ctx, !on)
}

// Metrics is where loom's runs record their OpenTelemetry metrics: the
// GenAI client metrics (gen_ai.client.operation.duration,
// gen_ai.client.token.usage), loom.tool.calls, loom.guardrail.checks, and
// the instruments other loom packages own (loom.sandbox.runs and
// loom.sandbox.duration in package sandbox, loom.workflow.outcomes in
// package engine). Create it once per meter provider with [NewMetrics] and
// put it on the context with [WithMetrics]; without it nothing is
// measured.
type Metrics struct {
	meters *telemetry.Meters
}

// NewMetrics returns the metrics of mp, for loom's scope, with the AI
// agents' instruments made at once (so an error shows here).
func NewMetrics(mp metric.MeterProvider) (*Metrics, error) {
	ms := &Metrics{meters: telemetry.NewMeters(mp)}
	if _, _, err := telemetry.AIInstrumentsOf(ms.meters); err != nil {
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
