package agent

import (
	"context"
	"errors"

	"github.com/loomwork/loom/internal/telemetry"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/trace"
)

type guardInstrumentsKey struct{}

// guardChecks is loom.guardrail.checks, the guardrail checks by guardrail,
// stage and action ("error" when the check failed): the rate of refusals
// per guardrail.
func guardChecks(ctx context.Context) (metric.Int64Counter, bool) {
	c, ok, _ := telemetry.Instruments(telemetry.MetersFrom(ctx), guardInstrumentsKey{}, func(m metric.Meter) (metric.Int64Counter, error) {
		return m.Int64Counter("loom.guardrail.checks", metric.WithDescription("Guardrail checks, by guardrail, stage and action."))
	})
	return c, ok
}

func recordGuardCheck(ctx context.Context, name string, in GuardInput, action Action, err error) {
	c, ok := guardChecks(ctx)
	if !ok {
		return
	}
	if action == "" {
		action = ActionAllow
	}
	if err != nil {
		action = "error"
	}
	c.Add(ctx, 1, metric.WithAttributes(attribute.String("loom.guardrail.name", name),
		attribute.String("loom.guardrail.stage", string(in.Stage)), attribute.String("loom.guardrail.action", string(action))))
}

// startGuardSpan opens the span of one guardrail check, beneath the span
// of the run (or model call) it guards.
func startGuardSpan(ctx context.Context, name string, in GuardInput) (context.Context, trace.Span) {
	ctx, span := telemetry.Tracer(ctx).Start(ctx, "guardrail "+name)
	if span.IsRecording() {
		span.SetAttributes(
			attribute.String("loom.guardrail.name", name),
			attribute.String("loom.guardrail.stage", string(in.Stage)),
			attribute.String("loom.guardrail.agent", in.Agent),
			attribute.Bool("loom.guardrail.partial", in.Partial),
		)
	}
	return ctx, span
}

// endGuardSpan records the verdict on the guardrail's span. A refusal is
// recorded there as an error status and on the guarded run's span (the
// span of ctx) as attributes and a "loom.guardrail.tripwire" event, so
// the trace viewer shows which guardrail stopped the run.
func endGuardSpan(ctx context.Context, span trace.Span, name string, in GuardInput, v Verdict, err error) {
	if span.IsRecording() {
		action := v.Action
		if action == "" {
			action = ActionAllow
		}
		attrs := []attribute.KeyValue{attribute.String("loom.guardrail.action", string(action))}
		if v.Reason != "" {
			attrs = append(attrs, attribute.String("loom.guardrail.reason", telemetry.Truncate(v.Reason)))
		}
		span.SetAttributes(attrs...)
		switch {
		case err != nil && !errors.Is(err, errStopped):
			telemetry.RecordError(span, err, "guardrail")
		case err == nil && (action == ActionReject || action == ActionHalt):
			trip := &TripwireError{Guardrail: name, Stage: in.Stage, Agent: in.Agent, Reason: v.Reason}
			span.SetStatus(codes.Error, trip.Error())
			tripAttrs := []attribute.KeyValue{
				attribute.String("loom.tripwire.guardrail", name),
				attribute.String("loom.tripwire.stage", string(in.Stage)),
				attribute.String("loom.tripwire.action", string(action)),
				attribute.String("loom.tripwire.reason", telemetry.Truncate(v.Reason)),
			}
			span.AddEvent("loom.guardrail.tripwire", trace.WithAttributes(tripAttrs...))
			if parent := trace.SpanFromContext(ctx); parent.IsRecording() {
				parent.SetAttributes(tripAttrs...)
				parent.AddEvent("loom.guardrail.tripwire", trace.WithAttributes(tripAttrs...))
			}
		}
	}
	span.End()
}
