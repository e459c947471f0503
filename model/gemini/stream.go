package gemini

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"strconv"
	"strings"

	"github.com/loomwork/loom/model"
	"github.com/loomwork/loom/model/internal/provider"
	"google.golang.org/genai"
)

// ErrEmptyAnswer marks an answer that finished without any text or tool call
// and without a safety reason, a known Gemini failure (often thinking that
// used up the output budget). It is retryable.
var ErrEmptyAnswer = errors.New("empty answer")

// Stream sends req to streamGenerateContent (SSE) and yields the answer:
// text deltas, each function call as one whole tool-call delta, and a last
// chunk with usage and the finish reason. An answer with neither text nor
// calls is an error wrapping [ErrEmptyAnswer], or finishes with
// content_filter when Gemini withheld it for safety. A stream that ends
// without a finish reason is an error wrapping [model.ErrTruncated].
func (m *Model) Stream(ctx context.Context, req model.Request) iter.Seq2[model.Chunk, error] {
	return func(yield func(model.Chunk, error) bool) {
		if err := req.Validate(); err != nil {
			yield(model.Chunk{}, fmt.Errorf("%s: %w", ProviderID, err))
			return
		}
		contents, cfg, err := m.config(req)
		if err != nil {
			yield(model.Chunk{}, err)
			return
		}
		d := decoder{m: m}
		callCtx, bodyErr := withBodyErr(ctx)
		for resp, err := range m.models.GenerateContentStream(callCtx, m.name, contents, cfg) {
			if err != nil {
				yield(model.Chunk{}, m.streamErr(ctx, err, &d))
				return
			}
			d.responses++
			if !d.decode(resp, yield) {
				return
			}
		}
		if err := provider.Cancelled(ctx, ProviderID); err != nil {
			yield(model.Chunk{}, err)
			return
		}
		if err := bodyErr.get(); err != nil {
			yield(model.Chunk{}, m.streamErr(ctx, err, &d))
			return
		}
		if err := d.end(); err != nil {
			yield(model.Chunk{}, err)
			return
		}
		yield(d.final(), nil)
	}
}

type decoder struct {
	m         *Model
	responses int
	finish    genai.FinishReason
	message   string // finishMessage
	blocked   genai.BlockedReason
	text      bool
	calls     int
	last      *model.ToolCallDelta // the latest tool call
	usage     *model.Usage
}

func (d *decoder) decode(r *genai.GenerateContentResponse, yield func(model.Chunk, error) bool) bool {
	if u := r.UsageMetadata; u != nil {
		// Every chunk carries the running totals; the last one wins.
		// promptTokenCount includes the cached tokens; thinking is output.
		d.usage = &model.Usage{
			InputTokens:       int64(u.PromptTokenCount) + int64(u.ToolUsePromptTokenCount),
			OutputTokens:      int64(u.CandidatesTokenCount) + int64(u.ThoughtsTokenCount),
			CachedInputTokens: int64(u.CachedContentTokenCount),
		}
	}
	if pf := r.PromptFeedback; pf != nil && pf.BlockReason != "" {
		d.blocked = pf.BlockReason
		d.message = pf.BlockReasonMessage
	}
	if len(r.Candidates) == 0 {
		return true
	}
	c := r.Candidates[0] // loom never asks for more than one
	if c.Content != nil {
		for _, p := range c.Content.Parts {
			switch {
			case p.Thought:
				// Thought summaries are not part of the answer.
			case p.FunctionCall != nil:
				if !yield(model.Chunk{ToolCall: d.call(r, p)}, nil) {
					return false
				}
			case p.Text != "":
				d.text = true
				if !yield(model.Chunk{TextDelta: p.Text}, nil) {
					return false
				}
			}
		}
	}
	if c.FinishReason != "" && c.FinishReason != genai.FinishReasonUnspecified {
		d.finish = c.FinishReason
		d.message = c.FinishMessage
	}
	return true
}

// call turns a function call, which Gemini sends whole, into one tool-call
// delta. A call without an id gets a stable one made from the response id
// and the call's index.
func (d *decoder) call(r *genai.GenerateContentResponse, p *genai.Part) *model.ToolCallDelta {
	fc := p.FunctionCall
	index := d.calls
	d.calls++
	id := fc.ID
	if id == "" {
		id = synthetic + r.ResponseID + "-" + strconv.Itoa(index)
	}
	if len(p.ThoughtSignature) > 0 {
		d.m.sigs.put(id, p.ThoughtSignature)
	}
	args := "{}"
	if len(fc.Args) > 0 {
		if b, err := json.Marshal(fc.Args); err == nil {
			args = string(b)
		}
	}
	d.last = &model.ToolCallDelta{Index: index, ID: id, Name: fc.Name, ArgumentsDelta: args}
	return d.last
}

// end checks how the answer ended: a finish reason must have arrived, and
// an answer with no content must have a reason for it.
func (d *decoder) end() error {
	if d.blocked != "" || filtered(d.finish) {
		return nil // content_filter, with whatever arrived before
	}
	if d.finish == "" {
		return provider.Truncated(ProviderID, "a finish reason", nil)
	}
	if d.finish == genai.FinishReasonMaxTokens && d.last != nil {
		// Gemini sends calls whole, so their JSON parses even when the
		// limit cut them; the call cannot be trusted to be complete.
		return &model.CutToolCallError{ID: d.last.ID, Name: d.last.Name}
	}
	if !d.text && d.calls == 0 {
		hint := ""
		if d.finish == genai.FinishReasonMaxTokens {
			hint = "; the output token limit was reached before any answer (thinking may have used it): raise Options.MaxOutputTokens"
		}
		msg := ""
		if d.message != "" {
			msg = ": " + d.message
		}
		return fmt.Errorf("%s: %w: the model finished (%s%s) without text or a tool call%s; retry the call", ProviderID, ErrEmptyAnswer, d.finish, msg, hint)
	}
	return nil
}

func (d *decoder) final() model.Chunk {
	return model.Chunk{Usage: d.usage, FinishReason: d.finishReason()}
}

func (d *decoder) finishReason() model.FinishReason {
	switch {
	case d.blocked != "" || filtered(d.finish):
		return model.FinishContentFilter
	case d.finish == genai.FinishReasonMaxTokens:
		return model.FinishLength
	case d.calls > 0:
		return model.FinishToolCalls // Gemini says STOP after function calls
	case d.finish == genai.FinishReasonStop:
		return model.FinishStop
	}
	return model.FinishOther
}

// filtered reports whether Gemini withheld the output for a policy reason.
func filtered(r genai.FinishReason) bool {
	switch r {
	case genai.FinishReasonSafety, genai.FinishReasonRecitation, genai.FinishReasonBlocklist,
		genai.FinishReasonProhibitedContent, genai.FinishReasonSPII, genai.FinishReasonImageSafety,
		genai.FinishReasonImageProhibitedContent, genai.FinishReasonImageRecitation:
		return true
	}
	return false
}

// streamErr classifies how the stream ended (see provider.StreamErr). An
// error chunk inside the stream is the provider's error; genai's complaint
// about a line that is not an SSE field is a malformed response.
func (m *Model) streamErr(ctx context.Context, err error, d *decoder) error {
	if cerr := provider.Cancelled(ctx, ProviderID); cerr != nil {
		return cerr
	}
	var ae *model.APIError
	var apiErr genai.APIError
	switch {
	case errors.As(err, &ae):
	case errors.As(err, &apiErr):
		msg := cmp.Or(apiErr.Message, apiErr.Status)
		msg = strings.Join(strings.Fields(provider.Redact(msg, m.apiKey)), " ")
		ae = &model.APIError{Provider: ProviderID, StatusCode: cmp.Or(apiErr.Code, 500), Message: provider.Clip(msg, provider.MaxSummary), Code: reason(apiErr), Err: apiErr}
	case strings.Contains(err.Error(), "iterateResponseStream: invalid stream chunk"):
		return provider.Malformed(ProviderID, "a line that is not an SSE field")
	default:
		return provider.StreamErr(ctx, ProviderID, m.baseURL, err, d.responses > 0, "a finish reason")
	}
	if ae.Code == "API_KEY_INVALID" {
		// The Gemini API answers a bad key with 400 INVALID_ARGUMENT.
		return fmt.Errorf("%s: %w: the API key was rejected; check GOOGLE_API_KEY or GEMINI_API_KEY: %w", ProviderID, model.ErrAuth, ae)
	}
	return ae
}

// reason returns the google.rpc.ErrorInfo reason of an error, as
// "API_KEY_INVALID", or its status.
func reason(e genai.APIError) string {
	for _, d := range e.Details {
		if r, ok := d["reason"].(string); ok && r != "" {
			return r
		}
	}
	return e.Status
}
