package telemetry

import (
	"context"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"
)

// ToolCall names one tool call for its "execute_tool" span.
type ToolCall struct {
	// Name is the tool's name.
	Name string
	// ID is the model's id of the call; "" for a call that is not the
	// model's, as a snippet's.
	ID string
	// Arguments are recorded when content capture is on.
	Arguments []byte
	// Caller is what made the call when it was not the model, as
	// "sandbox" for a code-mode call; "" for the model's.
	Caller string
}

// StartToolSpan starts the "execute_tool {name}" span of one tool call,
// with the GenAI conventions' attributes: gen_ai.operation.name,
// gen_ai.tool.name, gen_ai.tool.call.id (when the model made the call),
// gen_ai.tool.type, loom.tool.caller (when something else did), and the
// arguments when content capture is on. Every tool call of loom, the
// model's and a snippet's, is traced by it and ended by [EndToolSpan].
func StartToolSpan(ctx context.Context, call ToolCall) (context.Context, trace.Span) {
	ctx, span := Tracer(ctx).Start(ctx, "execute_tool "+call.Name)
	if !span.IsRecording() {
		return ctx, span
	}
	attrs := make([]attribute.KeyValue, 0, 6)
	attrs = append(attrs,
		attribute.String("gen_ai.operation.name", "execute_tool"),
		attribute.String("gen_ai.tool.name", call.Name))
	if call.ID != "" {
		attrs = append(attrs, attribute.String("gen_ai.tool.call.id", call.ID))
	}
	attrs = append(attrs, attribute.String("gen_ai.tool.type", "function"))
	if call.Caller != "" {
		attrs = append(attrs, attribute.String("loom.tool.caller", call.Caller))
	}
	if call.Arguments != nil && CaptureContent(ctx) {
		attrs = append(attrs, attribute.String("gen_ai.tool.call.arguments", Truncate(string(call.Arguments))))
	}
	span.SetAttributes(attrs...)
	return ctx, span
}

// EndToolSpan records a tool call's outcome on its span and ends it:
// loom.tool.is_error, the result when content capture is on and result is
// not nil, and when the call failed an error status with err's message, or
// the result's when err is nil.
func EndToolSpan(ctx context.Context, span trace.Span, result []byte, isError bool, err error) {
	if span.IsRecording() {
		span.SetAttributes(attribute.Bool("loom.tool.is_error", isError))
		if result != nil && CaptureContent(ctx) {
			span.SetAttributes(attribute.String("gen_ai.tool.call.result", Truncate(string(result))))
		}
		if isError {
			msg := string(result)
			if err != nil {
				msg = err.Error()
			}
			span.SetStatus(codes.Error, msg)
		}
	}
	span.End()
}
