package openai

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"net/http"
	"strconv"

	"github.com/loomwork/loom/model"
	"github.com/loomwork/loom/model/internal/provider"
	sdk "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/packages/ssestream"
)

// Stream sends req to the Chat Completions endpoint with streaming and
// stream_options.include_usage, and yields the answer. The last chunk
// carries the usage and the finish reason. A stream that ends before a
// finish_reason arrived yields an error wrapping [model.ErrTruncated].
// Breaking out of the loop closes the HTTP response body.
func (m *Model) Stream(ctx context.Context, req model.Request) iter.Seq2[model.Chunk, error] {
	return func(yield func(model.Chunk, error) bool) {
		if err := req.Validate(); err != nil {
			yield(model.Chunk{}, fmt.Errorf("%s: %w", m.preset.ID, err))
			return
		}
		params, err := m.params(req)
		if err != nil {
			yield(model.Chunk{}, err)
			return
		}
		var d decoder
		watch := option.WithMiddleware(func(r *http.Request, next option.MiddlewareNext) (*http.Response, error) {
			resp, err := next(r)
			if err == nil {
				d.body = provider.WatchMarker(resp.Body, "[DONE]")
				resp.Body = d.body
			}
			return resp, err
		})
		provider.Pump(m.svc.NewStreaming(ctx, params, watch),
			func(e sdk.ChatCompletionChunk) bool { d.chunks++; return d.decode(e, yield) },
			func(err error) error { return m.streamErr(ctx, err, &d) },
			d.final, yield)
	}
}

// decoder turns SDK chunks into model chunks. It holds back the finish reason
// and usage (which OpenAI sends in a later chunk with no choices) so both go
// out on the last chunk.
type decoder struct {
	body     *provider.MarkerBody // watches for data: [DONE]
	chunks   int
	finish   string
	refused  bool
	sawCalls bool
	usage    *model.Usage
	seen     []int64 // tool call indexes that have had their first fragment
}

func (d *decoder) decode(c sdk.ChatCompletionChunk, yield func(model.Chunk, error) bool) bool {
	if c.JSON.Usage.Valid() {
		u := c.Usage
		// Keep the latest report: some compatible servers send a running
		// total on every chunk.
		d.usage = &model.Usage{InputTokens: u.PromptTokens, OutputTokens: u.CompletionTokens, CachedInputTokens: u.PromptTokensDetails.CachedTokens}
	}
	for i := range c.Choices {
		ch := &c.Choices[i]
		if ch.Index != 0 {
			continue // loom never asks for n > 1
		}
		delta := &ch.Delta
		if delta.Content != "" {
			if !yield(model.Chunk{TextDelta: delta.Content}, nil) {
				return false
			}
		}
		if delta.Refusal != "" {
			d.refused = true
			if !yield(model.Chunk{TextDelta: delta.Refusal}, nil) {
				return false
			}
		}
		for j := range delta.ToolCalls {
			tc := &delta.ToolCalls[j]
			td := &model.ToolCallDelta{Index: int(tc.Index), ID: tc.ID, Name: tc.Function.Name, ArgumentsDelta: tc.Function.Arguments}
			if first := d.first(tc.Index); first && td.ID == "" {
				// Some compatible servers send no ids; the agent needs one
				// to pair the result with the call.
				td.ID = "call_" + strconv.FormatInt(tc.Index, 10)
			}
			d.sawCalls = true
			if !yield(model.Chunk{ToolCall: td}, nil) {
				return false
			}
		}
		if ch.FinishReason != "" {
			d.finish = ch.FinishReason
		}
	}
	return true
}

// first reports whether index is seen for the first time.
func (d *decoder) first(index int64) bool {
	for _, i := range d.seen {
		if i == index {
			return false
		}
	}
	d.seen = append(d.seen, index)
	return true
}

func (d *decoder) final() model.Chunk {
	return model.Chunk{Usage: d.usage, FinishReason: d.finishReason()}
}

func (d *decoder) finishReason() model.FinishReason {
	switch {
	case d.refused:
		return model.FinishContentFilter
	case d.finish == "tool_calls" || d.finish == "function_call":
		return model.FinishToolCalls
	case d.finish == "stop" && d.sawCalls:
		// Some compatible servers say "stop" after tool calls.
		return model.FinishToolCalls
	case d.finish == "stop":
		return model.FinishStop
	case d.finish == "length":
		return model.FinishLength
	case d.finish == "content_filter":
		return model.FinishContentFilter
	}
	return model.FinishOther
}

// streamErr classifies how the stream ended (see provider.StreamErr): an
// error event mid-stream is the provider's error; a clean end is complete
// only with both a finish_reason and the protocol's "data: [DONE]" line.
func (m *Model) streamErr(ctx context.Context, err error, d *decoder) error {
	if cerr := provider.Cancelled(ctx, m.preset.ID); cerr != nil {
		return cerr
	}
	if err != nil {
		var se *ssestream.StreamError
		if errors.As(err, &se) {
			return fmt.Errorf("%s: %w: the provider reported an error mid-stream: %s", m.preset.ID, model.ErrServer, provider.Summarize(se.Event.Data, m.apiKey))
		}
		return provider.StreamErr(ctx, m.preset.ID, m.baseURL, err, d.chunks > 0, "data: [DONE]")
	}
	switch {
	case d.finish == "":
		return provider.Truncated(m.preset.ID, "a finish_reason", nil)
	case d.body == nil || !d.body.Seen():
		return provider.Truncated(m.preset.ID, "data: [DONE]", nil)
	}
	return nil
}
