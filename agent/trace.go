package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/loomwork/loom/model"
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
// message content (prompts, answers, code, tool results) on spans.
const CaptureContentEnv = "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT"

// MaxCapturedBytes bounds each captured content attribute; longer values are
// truncated with a marker.
const MaxCapturedBytes = 8 << 10

type (
	tracerProviderKey struct{}
	captureKey        struct{}
)

// WithTracerProvider returns ctx whose runs record spans to tp. Without it,
// runs use otel's global provider, which records nothing unless the program
// set one.
func WithTracerProvider(ctx context.Context, tp trace.TracerProvider) context.Context {
	if tp == nil {
		return ctx
	}
	return context.WithValue(ctx, tracerProviderKey{}, tp.Tracer(Scope))
}

// WithContentCapture returns ctx whose spans record message content (on) or
// not (off), whatever CaptureContentEnv says.
func WithContentCapture(ctx context.Context, on bool) context.Context {
	return context.WithValue(ctx, captureKey{}, on)
}

// Tracer returns the tracer for ctx: its provider's, or the global one, or
// one that records nothing when telemetry is off ([WithTelemetry]).
func Tracer(ctx context.Context) trace.Tracer {
	if telemetryOff(ctx) {
		return noop.NewTracerProvider().Tracer(Scope)
	}
	if t, ok := ctx.Value(tracerProviderKey{}).(trace.Tracer); ok {
		return t
	}
	return otel.GetTracerProvider().Tracer(Scope)
}

// CaptureContent reports whether spans under ctx record message content.
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
	for cut > 0 && !isRuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…[truncated " + strconv.Itoa(len(s)-cut) + " bytes]"
}

func isRuneStart(b byte) bool { return b&0xC0 != 0x80 }

// KindOf returns an agent's kind for traces ("ai", "func", "workflow", …):
// its Kind method's answer, or "agent".
func KindOf(a Agent) string {
	if k, ok := a.(interface{ Kind() string }); ok {
		return k.Kind()
	}
	return "agent"
}

func startAgentSpan(ctx context.Context, r *Run) (context.Context, trace.Span) {
	ctx, span := Tracer(ctx).Start(ctx, "invoke_agent "+r.Agent.Name())
	if !span.IsRecording() {
		return ctx, span
	}
	// One SetAttributes call at each end of a span: every call may grow
	// the SDK's attribute slice.
	attrs := make([]attribute.KeyValue, 6, 7)
	attrs[0] = attribute.String("gen_ai.operation.name", "invoke_agent")
	attrs[1] = attribute.String("gen_ai.agent.name", r.Agent.Name())
	attrs[2] = attribute.String("gen_ai.agent.description", r.Agent.Description())
	attrs[3] = attribute.String("loom.run.id", r.ID)
	attrs[4] = attribute.String("loom.run.parent_id", r.ParentID)
	attrs[5] = attribute.String("loom.agent.kind", KindOf(r.Agent))
	if CaptureContent(ctx) {
		attrs = append(attrs, attribute.String("loom.agent.input", Truncate(string(r.Input))))
	}
	span.SetAttributes(attrs...)
	return ctx, span
}

func endAgentSpan(ctx context.Context, span trace.Span, r *Run, out json.RawMessage, err error) {
	if span.IsRecording() {
		attrs := make([]attribute.KeyValue, 3, 5)
		attrs[0] = attribute.Int64("gen_ai.usage.input_tokens", r.usage.InputTokens)
		attrs[1] = attribute.Int64("gen_ai.usage.output_tokens", r.usage.OutputTokens)
		attrs[2] = attribute.String("loom.outcome", outcome(err))
		if r.cost > 0 {
			attrs = append(attrs, attribute.Float64("loom.cost.usd", r.cost))
		}
		if err == nil && CaptureContent(ctx) {
			attrs = append(attrs, attribute.String("loom.agent.output", Truncate(string(out))))
		}
		span.SetAttributes(attrs...)
		RecordError(span, err)
	}
	span.End()
}

func outcome(err error) string {
	switch {
	case err == nil:
		return "ok"
	case errors.Is(err, ErrLimit):
		return "limit"
	}
	return "error"
}

// RecordError marks span failed with err, setting error.type; nil does
// nothing.
func RecordError(span trace.Span, err error) {
	if err == nil || errors.Is(err, ErrStopped) {
		return
	}
	span.RecordError(err)
	span.SetStatus(codes.Error, err.Error())
	span.SetAttributes(attribute.String("error.type", errorType(err)))
}

func errorType(err error) string {
	var le *LimitError
	var ve *ValidationError
	var ae *model.APIError
	switch {
	case errors.As(err, &le):
		return "limit:" + le.Limit
	case errors.As(err, &ve):
		return "validation"
	case errors.As(err, &ae):
		return "http." + strconv.Itoa(ae.StatusCode)
	case errors.Is(err, context.DeadlineExceeded):
		return "timeout"
	case errors.Is(err, context.Canceled):
		return "canceled"
	}
	for u := errors.Unwrap(err); u != nil; u = errors.Unwrap(u) {
		err = u
	}
	return fmt.Sprintf("%T", err)
}

func startChatSpan(ctx context.Context, m model.Model, req *model.Request) (context.Context, trace.Span) {
	ctx, span := Tracer(ctx).Start(ctx, "chat "+m.Name(), trace.WithSpanKind(trace.SpanKindClient))
	if !span.IsRecording() {
		return ctx, span
	}
	o := req.Options
	attrs := []attribute.KeyValue{
		attribute.String("gen_ai.operation.name", "chat"),
		attribute.String("gen_ai.provider.name", m.Provider()),
		attribute.String("gen_ai.request.model", m.Name()),
		attribute.Int("loom.tools", len(req.Tools)),
	}
	if o.Temperature != nil {
		attrs = append(attrs, attribute.Float64("gen_ai.request.temperature", *o.Temperature))
	}
	if o.TopP != nil {
		attrs = append(attrs, attribute.Float64("gen_ai.request.top_p", *o.TopP))
	}
	if o.PresencePenalty != nil {
		attrs = append(attrs, attribute.Float64("gen_ai.request.presence_penalty", *o.PresencePenalty))
	}
	if o.FrequencyPenalty != nil {
		attrs = append(attrs, attribute.Float64("gen_ai.request.frequency_penalty", *o.FrequencyPenalty))
	}
	if o.MaxOutputTokens != nil {
		attrs = append(attrs, attribute.Int("gen_ai.request.max_tokens", *o.MaxOutputTokens))
	}
	if len(o.Stop) > 0 {
		attrs = append(attrs, attribute.StringSlice("gen_ai.request.stop_sequences", o.Stop))
	}
	if o.Seed != nil {
		attrs = append(attrs, attribute.Int64("gen_ai.request.seed", *o.Seed))
	}
	if CaptureContent(ctx) {
		var sys []model.Message
		var rest []model.Message
		for _, msg := range req.Messages {
			if msg.Role == model.RoleSystem {
				sys = append(sys, msg)
			} else {
				rest = append(rest, msg)
			}
		}
		if len(sys) > 0 {
			attrs = append(attrs, attribute.String("gen_ai.system_instructions", Truncate(messagesJSON(sys))))
		}
		attrs = append(attrs, attribute.String("gen_ai.input.messages", Truncate(messagesJSON(rest))))
	}
	span.SetAttributes(attrs...)
	return ctx, span
}

// endChatSpan closes a chat span; cost is the call's estimated cost, or
// negative when the price is unknown (the attribute is then left out).
func endChatSpan(ctx context.Context, span trace.Span, resp *model.Response, cost float64, err error) {
	if span.IsRecording() {
		attrs := make([]attribute.KeyValue, 0, 6)
		if cost >= 0 {
			attrs = append(attrs, attribute.Float64("loom.cost.usd", cost))
		}
		if resp != nil {
			attrs = append(attrs,
				attribute.Int64("gen_ai.usage.input_tokens", resp.Usage.InputTokens),
				attribute.Int64("gen_ai.usage.output_tokens", resp.Usage.OutputTokens),
				attribute.Int64("gen_ai.usage.cache_read.input_tokens", resp.Usage.CachedInputTokens),
			)
			if resp.FinishReason != "" {
				attrs = append(attrs, attribute.StringSlice("gen_ai.response.finish_reasons", []string{string(resp.FinishReason)}))
			}
			if err == nil && CaptureContent(ctx) {
				attrs = append(attrs, attribute.String("gen_ai.output.messages", Truncate(messagesJSON([]model.Message{resp.Message}))))
			}
		}
		span.SetAttributes(attrs...)
		RecordError(span, err)
	}
	span.End()
}

func startToolSpan(ctx context.Context, call *model.ToolCall) (context.Context, trace.Span) {
	ctx, span := Tracer(ctx).Start(ctx, "execute_tool "+call.Name)
	if !span.IsRecording() {
		return ctx, span
	}
	attrs := make([]attribute.KeyValue, 4, 5)
	attrs[0] = attribute.String("gen_ai.operation.name", "execute_tool")
	attrs[1] = attribute.String("gen_ai.tool.name", call.Name)
	attrs[2] = attribute.String("gen_ai.tool.call.id", call.ID)
	attrs[3] = attribute.String("gen_ai.tool.type", "function")
	if CaptureContent(ctx) {
		attrs = append(attrs, attribute.String("gen_ai.tool.call.arguments", Truncate(string(call.Arguments))))
	}
	span.SetAttributes(attrs...)
	return ctx, span
}

func endToolSpan(ctx context.Context, span trace.Span, res *model.ToolResult, err error) {
	if span.IsRecording() {
		if CaptureContent(ctx) {
			span.SetAttributes(attribute.Bool("loom.tool.is_error", res.IsError),
				attribute.String("gen_ai.tool.call.result", Truncate(string(res.Content))))
		} else {
			span.SetAttributes(attribute.Bool("loom.tool.is_error", res.IsError))
		}
		if res.IsError {
			msg := string(res.Content)
			if err != nil {
				msg = err.Error()
			}
			span.SetStatus(codes.Error, msg)
		}
	}
	span.End()
}

// messagesJSON renders messages in the GenAI conventions' message form.
func messagesJSON(msgs []model.Message) string {
	type part struct {
		Type      string          `json:"type"`
		Content   string          `json:"content,omitempty"`
		ID        string          `json:"id,omitempty"`
		Name      string          `json:"name,omitempty"`
		Arguments json.RawMessage `json:"arguments,omitempty"`
		Response  json.RawMessage `json:"response,omitempty"`
		URL       string          `json:"url,omitempty"`
		MIMEType  string          `json:"mime_type,omitempty"`
	}
	type msg struct {
		Role  string `json:"role"`
		Parts []part `json:"parts"`
	}
	out := make([]msg, 0, len(msgs))
	for _, m := range msgs {
		w := msg{Role: string(m.Role)}
		for _, p := range m.Parts {
			switch p := p.(type) {
			case model.Text:
				w.Parts = append(w.Parts, part{Type: "text", Content: p.Text})
			case model.Image:
				w.Parts = append(w.Parts, part{Type: "image", URL: p.URL, MIMEType: p.MIMEType})
			case model.ToolCall:
				w.Parts = append(w.Parts, part{Type: "tool_call", ID: p.ID, Name: p.Name, Arguments: validJSON(p.Arguments)})
			case model.ToolResult:
				w.Parts = append(w.Parts, part{Type: "tool_call_response", ID: p.CallID, Name: p.Name, Response: validJSON(p.Content)})
			}
		}
		out = append(out, w)
	}
	b, _ := json.Marshal(out)
	return string(b)
}

// validJSON returns raw, or raw as a JSON string when it is not valid JSON
// (a model can send broken arguments), so the messages always encode.
func validJSON(raw json.RawMessage) json.RawMessage {
	if len(raw) == 0 || json.Valid(raw) {
		return raw
	}
	b, _ := json.Marshal(string(raw))
	return b
}
