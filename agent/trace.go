package agent

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strconv"
	"strings"

	"github.com/loomwork/loom/internal/telemetry"
	"github.com/loomwork/loom/model"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"
)

// startAgentSpan starts the run's span. When nothing would record it
// ([telemetry.Silent]) it starts none and returns ctx and a nil span: a
// span nobody records costs four allocations per run.
func startAgentSpan(ctx context.Context, r *Run) (context.Context, trace.Span) {
	if telemetry.Silent(ctx) {
		return ctx, nil
	}
	info := r.Agent.Info()
	ctx, span := telemetry.Tracer(ctx).Start(ctx, "invoke_agent "+info.Name)
	if !span.IsRecording() {
		return ctx, span
	}
	// One SetAttributes call at each end of a span: every call may grow
	// the SDK's attribute slice.
	attrs := make([]attribute.KeyValue, 6, 7)
	attrs[0] = attribute.String("gen_ai.operation.name", "invoke_agent")
	attrs[1] = attribute.String("gen_ai.agent.name", info.Name)
	attrs[2] = attribute.String("gen_ai.agent.description", info.Description)
	attrs[3] = attribute.String("loom.run.id", r.ID)
	attrs[4] = attribute.String("loom.run.parent_id", r.ParentID)
	attrs[5] = attribute.String("loom.agent.kind", info.kind())
	if telemetry.CaptureContent(ctx) {
		attrs = append(attrs, attribute.String("loom.agent.input", telemetry.Truncate(string(r.Input))))
	}
	span.SetAttributes(attrs...)
	return ctx, span
}

// endAgentSpan ends the run's span, if startAgentSpan started one.
func endAgentSpan(ctx context.Context, span trace.Span, r *Run, out json.RawMessage, err error) {
	if span == nil {
		return
	}
	if span.IsRecording() {
		attrs := make([]attribute.KeyValue, 3, 5)
		attrs[0] = attribute.Int64("gen_ai.usage.input_tokens", r.usage.InputTokens)
		attrs[1] = attribute.Int64("gen_ai.usage.output_tokens", r.usage.OutputTokens)
		attrs[2] = attribute.String("loom.outcome", outcome(err))
		if r.cost > 0 {
			attrs = append(attrs, attribute.Float64("loom.cost.usd", r.cost))
		}
		if r.finish != "" {
			attrs = append(attrs, attribute.String("loom.finish_reason", string(r.finish)))
		}
		if err == nil && telemetry.CaptureContent(ctx) {
			attrs = append(attrs, attribute.String("loom.agent.output", telemetry.Truncate(string(out))))
		}
		var ie *InterruptedError
		if errors.As(err, &ie) {
			attrs = append(attrs, attribute.String("loom.questions", questionsAttr(ctx, ie.Questions)))
		}
		span.SetAttributes(attrs...)
		recordError(span, err)
	}
	span.End()
}

func outcome(err error) string {
	switch {
	case err == nil:
		return "ok"
	case errors.Is(err, ErrLimit):
		return "limit"
	case errors.Is(err, ErrInterrupted):
		return "waiting"
	}
	return "error"
}

// questionsAttr is loom.questions: the questions a paused run waits for,
// as JSON (id, kind, and the payload when content is captured).
func questionsAttr(ctx context.Context, qs []Question) string {
	type q struct {
		ID      string          `json:"id"`
		Kind    string          `json:"kind"`
		Payload json.RawMessage `json:"payload,omitempty"`
	}
	out := make([]q, len(qs))
	for i, x := range qs {
		out[i] = q{ID: x.ID, Kind: x.Kind}
		if telemetry.CaptureContent(ctx) && json.Valid(x.Payload) && len(x.Payload) <= telemetry.MaxCapturedBytes {
			out[i].Payload = x.Payload
		}
	}
	b, _ := json.Marshal(out)
	return string(b)
}

// recordError marks span as failed with err, unless the consumer stopped
// or the run paused for answers: a run that waits has not failed.
func recordError(span trace.Span, err error) {
	if err == nil || errors.Is(err, errStopped) || errors.Is(err, ErrInterrupted) {
		return
	}
	telemetry.RecordError(span, err, errorType(err))
}

// errorType classifies err for error.type: agent's own errors, else as
// every loom span does (telemetry.ErrorType).
func errorType(err error) string {
	var le *LimitError
	var ve *ValidationError
	var te *TripwireError
	switch {
	case errors.As(err, &te):
		return "tripwire"
	case errors.As(err, &le):
		return "limit:" + le.Limit
	case errors.As(err, &ve):
		return "validation"
	}
	return telemetry.ErrorType(err)
}

func startChatSpan(ctx context.Context, m model.Model, req *model.Request) (context.Context, trace.Span) {
	ctx, span := telemetry.Tracer(ctx).Start(ctx, "chat "+m.Name(), trace.WithSpanKind(trace.SpanKindClient))
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
	if telemetry.CaptureContent(ctx) {
		if slices.ContainsFunc(req.Messages, isSystem) {
			attrs = append(attrs, attribute.String("gen_ai.system_instructions", capturedMessages(req.Messages, isSystem)))
		}
		attrs = append(attrs, attribute.String("gen_ai.input.messages", capturedMessages(req.Messages, notSystem)))
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
			if err == nil && telemetry.CaptureContent(ctx) {
				attrs = append(attrs, attribute.String("gen_ai.output.messages", capturedMessages([]model.Message{resp.Message}, nil)))
			}
		}
		span.SetAttributes(attrs...)
		recordError(span, err)
	}
	span.End()
}

func isSystem(m model.Message) bool  { return m.Role == model.RoleSystem }
func notSystem(m model.Message) bool { return m.Role != model.RoleSystem }

// capturedMessages renders the messages of msgs that keep selects (all when
// keep is nil) as a JSON array in the GenAI conventions' message form,
// bounded by telemetry.MaxCapturedBytes. When they fit, that is the whole array. When
// they do not, it walks from the newest message back and encodes only the
// messages that fit, after a marker counting the earlier ones left out, so
// the work is bounded by the cap rather than by the length of the history;
// a newest message too long on its own is cut as [Truncate] cuts.
func capturedMessages(msgs []model.Message, keep func(model.Message) bool) string {
	type extent struct{ start, end int }
	var (
		buf     bytes.Buffer
		enc     = json.NewEncoder(&buf) // escapes as json.Marshal does
		kept    []extent                // encoded messages, newest first
		size    = len("[]")
		full    bool
		omitted int
	)
	for i := len(msgs) - 1; i >= 0; i-- {
		if keep != nil && !keep(msgs[i]) {
			continue
		}
		if full {
			omitted++
			continue
		}
		start := buf.Len()
		_ = enc.Encode(wireMessage(msgs[i])) // cannot fail: every field is a string or valid JSON
		e := extent{start, buf.Len() - 1}    // without Encode's newline
		add := e.end - e.start
		if len(kept) > 0 {
			add++ // the comma
		}
		if len(kept) > 0 && size+add > telemetry.MaxCapturedBytes {
			buf.Truncate(start)
			full = true
			omitted++
			continue
		}
		kept = append(kept, e)
		size += add
		full = size > telemetry.MaxCapturedBytes
	}
	var out strings.Builder
	if omitted > 0 {
		out.Grow(size + 48)
		out.WriteString("…[truncated " + strconv.Itoa(omitted) + " earlier messages] ")
	} else {
		out.Grow(size)
	}
	start := out.Len()
	out.WriteByte('[')
	b := buf.Bytes()
	for i := len(kept) - 1; i >= 0; i-- {
		out.Write(b[kept[i].start:kept[i].end])
		if i > 0 {
			out.WriteByte(',')
		}
	}
	out.WriteByte(']')
	if size > telemetry.MaxCapturedBytes { // one message, too long on its own
		return out.String()[:start] + telemetry.Truncate(out.String()[start:])
	}
	return out.String()
}

// wirePart and wireMessage are a message in the GenAI conventions' form.
type (
	wirePart struct {
		Type      string          `json:"type"`
		Content   string          `json:"content,omitempty"`
		ID        string          `json:"id,omitempty"`
		Name      string          `json:"name,omitempty"`
		Arguments json.RawMessage `json:"arguments,omitempty"`
		Response  json.RawMessage `json:"response,omitempty"`
		URL       string          `json:"url,omitempty"`
		MIMEType  string          `json:"mime_type,omitempty"`
	}
	wireMsg struct {
		Role  string     `json:"role"`
		Parts []wirePart `json:"parts"`
	}
)

func wireMessage(m model.Message) wireMsg {
	w := wireMsg{Role: string(m.Role)}
	for _, p := range m.Parts {
		switch p := p.(type) {
		case model.Text:
			w.Parts = append(w.Parts, wirePart{Type: "text", Content: p.Text})
		case model.Image:
			w.Parts = append(w.Parts, wirePart{Type: "image", URL: p.URL, MIMEType: p.MIMEType})
		case model.ToolCall:
			w.Parts = append(w.Parts, wirePart{Type: "tool_call", ID: p.ID, Name: p.Name, Arguments: validJSON(p.Arguments)})
		case model.ToolResult:
			w.Parts = append(w.Parts, wirePart{Type: "tool_call_response", ID: p.CallID, Name: p.Name, Response: validJSON(p.Content)})
		}
	}
	return w
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
