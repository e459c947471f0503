package temporal

import (
	"context"
	"github.com/loomwork/loom/agent/agentrt"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/trace"
	"go.opentelemetry.io/otel/trace/embedded"
	"go.opentelemetry.io/otel/trace/noop"
	"go.temporal.io/sdk/workflow"
)

// replayGate is the tracer provider [Context] installs: its spans go to
// the global tracer provider while the workflow runs live, and are not
// recorded while it replays, so a step replayed on another worker is not
// traced twice. It asks at each span, since a replay catches up and then
// the run goes on live.
type replayGate struct {
	embedded.TracerProvider
	b *bridge
}

func (g replayGate) Tracer(name string, opts ...trace.TracerOption) trace.Tracer {
	return gatedTracer{b: g.b, name: name, opts: opts}
}

type gatedTracer struct {
	embedded.Tracer
	b    *bridge
	name string
	opts []trace.TracerOption
}

func (t gatedTracer) Start(ctx context.Context, span string, opts ...trace.SpanStartOption) (context.Context, trace.Span) {
	if workflow.IsReplaying(t.b.cur) {
		return noop.NewTracerProvider().Tracer(t.name).Start(ctx, span, opts...)
	}
	return otel.GetTracerProvider().Tracer(t.name, t.opts...).Start(ctx, span, opts...)
}

// withReplayGate installs the gate on ctx.
func withReplayGate(ctx context.Context, b *bridge) context.Context {
	return agentrt.WithTracerProvider(ctx, replayGate{b: b})
}
