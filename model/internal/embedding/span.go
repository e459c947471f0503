package embedding

import (
	"context"
	"sync"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"

	"github.com/loomwork/loom/internal/telemetry"
	"github.com/loomwork/loom/model"
)

// tracer returns the tracer of the span in ctx, so an embedding call inside
// an agent run records to the run's provider; else otel's global one.
func tracer(ctx context.Context) trace.Tracer {
	if sp := trace.SpanFromContext(ctx); sp.SpanContext().IsValid() {
		return sp.TracerProvider().Tracer(telemetry.Scope)
	}
	return otel.GetTracerProvider().Tracer(telemetry.Scope)
}

// Call is the telemetry of one Embed call: an "embeddings {model}" client
// span with the GenAI semantic conventions.
type Call struct {
	span trace.Span
}

// Start opens the span of an Embed call of texts texts.
func Start(ctx context.Context, provider, modelName string, dims, texts int) (context.Context, *Call) {
	ctx, span := tracer(ctx).Start(ctx, "embeddings "+modelName, trace.WithSpanKind(trace.SpanKindClient))
	if span.IsRecording() {
		span.SetAttributes(
			attribute.String("gen_ai.operation.name", "embeddings"),
			attribute.String("gen_ai.provider.name", provider),
			attribute.String("gen_ai.request.model", modelName),
			attribute.Int("gen_ai.embeddings.dimension.count", dims),
			attribute.StringSlice("gen_ai.request.encoding_formats", []string{"float"}),
			attribute.Int("loom.embeddings.inputs", texts),
		)
	}
	return ctx, &Call{span: span}
}

// End records the call's usage, cost (when priced), batches and error, and
// ends the span. estimated marks usage the provider did not report.
func (c *Call) End(u model.Usage, estimated bool, cost float64, priced bool, batches int, err error) {
	if c.span.IsRecording() {
		attrs := []attribute.KeyValue{
			attribute.Int64("gen_ai.usage.input_tokens", u.InputTokens),
			attribute.Int("loom.embeddings.batches", batches),
		}
		if estimated {
			attrs = append(attrs, attribute.Bool("loom.usage.estimated", true))
		}
		if priced {
			attrs = append(attrs, attribute.Float64("loom.cost.usd", cost))
		}
		c.span.SetAttributes(attrs...)
		telemetry.RecordError(c.span, err, telemetry.ErrorType(err))
	}
	c.span.End()
}

// Totals adds up the usage and cost of an embedder's calls. It is safe for
// concurrent use; the zero value is ready.
type Totals struct {
	mu    sync.Mutex
	usage model.Usage
	cost  float64
}

// Add counts one call.
func (t *Totals) Add(u model.Usage, cost float64) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.usage = t.usage.Add(u)
	t.cost += cost
}

// Usage returns the tokens counted so far.
func (t *Totals) Usage() model.Usage {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.usage
}

// Cost returns the estimated US dollars counted so far.
func (t *Totals) Cost() float64 {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.cost
}
