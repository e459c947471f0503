// Package telemetry holds what loom's packages share to trace and measure
// their runs: the tracer, content capture and the meters on ctx. Each
// package owns its own instruments (see [Instruments]); users set the
// providers through package agent/agentrt (WithTracerProvider,
// WithContentCapture, NewMetrics, WithMetrics, WithTelemetry).
package telemetry

import (
	"context"
	"os"
	"reflect"
	"strconv"
	"strings"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"
	"go.opentelemetry.io/otel/trace/noop"
)

// Scope is the OpenTelemetry instrumentation scope of loom's spans and
// metrics.
const Scope = "github.com/loomwork/loom"

// CaptureContentEnv is the standard variable that opts in to recording
// message content on spans.
const CaptureContentEnv = "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT"

// MaxCapturedBytes bounds each captured content attribute.
const MaxCapturedBytes = 8 << 10

type (
	tracerKey  struct{}
	captureKey struct{}
	offKey     struct{}
)

// WithTracerProvider returns ctx whose spans go to tp (nil leaves ctx as
// it is).
func WithTracerProvider(ctx context.Context, tp trace.TracerProvider) context.Context {
	if tp == nil {
		return ctx
	}
	return context.WithValue(ctx, tracerKey{}, tp.Tracer(Scope))
}

// WithContentCapture returns ctx whose spans record content (on) or not.
func WithContentCapture(ctx context.Context, on bool) context.Context {
	return context.WithValue(ctx, captureKey{}, on)
}

// WithOff returns ctx under which nothing is traced or measured (off), as
// while a durable engine replays, or everything is again.
func WithOff(ctx context.Context, off bool) context.Context {
	return context.WithValue(ctx, offKey{}, off)
}

// Off reports whether telemetry is switched off on ctx.
func Off(ctx context.Context) bool {
	off, _ := ctx.Value(offKey{}).(bool)
	return off
}

// Tracer returns the tracer for ctx: its provider's, or the global one, or
// one that records nothing when telemetry is off.
func Tracer(ctx context.Context) trace.Tracer {
	if Off(ctx) {
		return noop.NewTracerProvider().Tracer(Scope)
	}
	if t, ok := ctx.Value(tracerKey{}).(trace.Tracer); ok {
		return t
	}
	return otel.GetTracerProvider().Tracer(Scope)
}

// globalDefaultPkg is where otel's default global tracer provider lives:
// the one [otel.GetTracerProvider] returns until a program sets its own.
const globalDefaultPkg = "go.opentelemetry.io/otel/internal/global"

// Silent reports whether a span started under ctx records nothing and
// nothing on ctx records either: telemetry is off, or ctx's tracer is a
// no-op one, or there is none and the program never set a global tracer
// provider (whose spans record nothing); and ctx carries no recording
// span. Starting a span then only puts a non-recording span with the same
// span context on ctx, which a caller may skip: every span started below
// finds the same parent.
func Silent(ctx context.Context) bool {
	if trace.SpanFromContext(ctx).IsRecording() {
		return false
	}
	if Off(ctx) {
		return true
	}
	if t, ok := ctx.Value(tracerKey{}).(trace.Tracer); ok {
		_, noopTracer := t.(noop.Tracer)
		return noopTracer
	}
	switch tp := otel.GetTracerProvider().(type) {
	case noop.TracerProvider:
		return true
	default:
		rt := reflect.TypeOf(tp)
		return rt != nil && rt.Kind() == reflect.Pointer && rt.Elem().PkgPath() == globalDefaultPkg
	}
}

// CaptureContent reports whether spans under ctx record content: as set
// with WithContentCapture, else as CaptureContentEnv says.
func CaptureContent(ctx context.Context) bool {
	if on, ok := ctx.Value(captureKey{}).(bool); ok {
		return on
	}
	v := strings.ToLower(os.Getenv(CaptureContentEnv))
	return v == "true" || v == "1"
}

// Truncate shortens s to MaxCapturedBytes, marking what was cut.
func Truncate(s string) string {
	if len(s) <= MaxCapturedBytes {
		return s
	}
	cut := MaxCapturedBytes
	for cut > 0 && s[cut]&0xC0 == 0x80 {
		cut--
	}
	return s[:cut] + "…[truncated " + strconv.Itoa(len(s)-cut) + " bytes]"
}

// RecordError marks span as failed with err, classified as errType (the
// error.type attribute).
func RecordError(span trace.Span, err error, errType string) {
	if err == nil {
		return
	}
	span.RecordError(err)
	span.SetStatus(codes.Error, err.Error())
	span.SetAttributes(attribute.String("error.type", errType))
}
