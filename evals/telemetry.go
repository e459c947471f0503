package evals

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/trace"
	"go.opentelemetry.io/otel/trace/noop"
)

// scope is the instrumentation scope of the evaluation's spans and metrics.
const scope = "github.com/loomwork/loom/evals"

// telemetry records an evaluation as spans and metrics; without providers
// it records nothing.
type telemetry struct {
	tracer   trace.Tracer
	samples  metric.Int64Counter
	duration metric.Float64Histogram
	dataset  attribute.KeyValue
}

func newTelemetry(cfg Config) (*telemetry, error) {
	t := &telemetry{tracer: noop.NewTracerProvider().Tracer(scope), dataset: attribute.String("loom.eval.dataset", cfg.Dataset)}
	if cfg.TracerProvider != nil {
		t.tracer = cfg.TracerProvider.Tracer(scope)
	}
	if cfg.MeterProvider != nil {
		m := cfg.MeterProvider.Meter(scope)
		var err error
		if t.samples, err = m.Int64Counter("loom.eval.samples", metric.WithDescription("Evaluation samples checked, by outcome class."), metric.WithUnit("{sample}")); err != nil {
			return nil, fmt.Errorf("evals: metrics: %w", err)
		}
		if t.duration, err = m.Float64Histogram("loom.eval.solver.duration", metric.WithDescription("The solver's time per sample."), metric.WithUnit("s")); err != nil {
			return nil, fmt.Errorf("evals: metrics: %w", err)
		}
	}
	return t, nil
}

// start opens the evaluation's root span; end closes it with the scores.
func (t *telemetry) start(ctx context.Context, r *Report, problems int) (context.Context, func(*Report, error)) {
	ctx, span := t.tracer.Start(ctx, "eval "+r.Dataset, trace.WithNewRoot(), trace.WithAttributes(
		t.dataset,
		attribute.String("loom.eval.model", r.Model),
		attribute.String("loom.eval.solver", r.Solver),
		attribute.Int("loom.eval.problems", problems),
		attribute.Int("loom.eval.samples_per_problem", r.Samples),
	))
	return ctx, func(r *Report, err error) {
		for k, v := range r.PassAt {
			span.SetAttributes(attribute.Float64("loom.eval.pass_at_"+strconv.Itoa(k), v))
		}
		checked := 0
		for _, n := range r.Failures {
			checked += n
		}
		span.SetAttributes(
			// the samples checked and those that passed, which the trace
			// viewer lists the evaluation with
			attribute.Int("loom.eval.samples_checked", checked),
			attribute.Int("loom.eval.samples_passed", r.Failures[Passed]),
			attribute.Float64("loom.eval.error_rate", r.ErrorRate),
			attribute.Float64("loom.eval.samples_per_second", r.Throughput),
			attribute.Float64("loom.eval.latency_p50_ms", r.LatencyP50MS),
			attribute.Float64("loom.eval.latency_p95_ms", r.LatencyP95MS),
			attribute.Int64("gen_ai.usage.input_tokens", r.Usage.InputTokens),
			attribute.Int64("gen_ai.usage.output_tokens", r.Usage.OutputTokens),
		)
		if err != nil {
			span.SetStatus(codes.Error, err.Error())
		}
		span.End()
	}
}

// sample opens one sample's span; its end records the outcome.
func (t *telemetry) sample(ctx context.Context, id string, idx int) (context.Context, func(context.Context, Sample, time.Duration)) {
	ctx, span := t.tracer.Start(ctx, "eval.sample "+id, trace.WithAttributes(
		attribute.String("loom.eval.problem", id), attribute.Int("loom.eval.sample", idx)))
	return ctx, func(ctx context.Context, s Sample, lat time.Duration) {
		score := 0.0
		if s.Class == Passed {
			score = 1
		}
		// the score is the sample's share of pass@1: 1 when it passed
		span.SetAttributes(attribute.String("loom.eval.class", string(s.Class)), attribute.Bool("loom.eval.passed", s.Class == Passed),
			attribute.Float64("loom.eval.score", score))
		if s.Class != Passed && s.Class != "" {
			span.SetStatus(codes.Error, string(s.Class)+": "+s.Message)
		}
		span.End()
		if t.samples != nil && s.Class != "" {
			// a stopped evaluation's unfinished samples are not counted
			t.samples.Add(context.WithoutCancel(ctx), 1, metric.WithAttributes(t.dataset, attribute.String("loom.eval.class", string(s.Class))))
			t.duration.Record(context.WithoutCancel(ctx), lat.Seconds(), metric.WithAttributes(t.dataset))
		}
	}
}
