package anthropic

import (
	"context"
	"errors"
	"fmt"
	"iter"

	"github.com/loomwork/loom/model"
	"github.com/loomwork/loom/model/internal/provider"

	sdk "github.com/anthropics/anthropic-sdk-go/v2"
)

// Stream sends req to the Messages API with streaming and yields the answer:
// text deltas, tool_use blocks as tool-call fragments (input_json_delta
// pieces as argument deltas), and a last chunk with usage and the finish
// reason. A stream that ends before message_stop yields an error wrapping
// [model.ErrTruncated]. Breaking out of the loop closes the HTTP body.
func (m *Model) Stream(ctx context.Context, req model.Request) iter.Seq2[model.Chunk, error] {
	return func(yield func(model.Chunk, error) bool) {
		if err := req.Validate(); err != nil {
			yield(model.Chunk{}, fmt.Errorf("%s: %w", ProviderID, err))
			return
		}
		params, err := m.params(req)
		if err != nil {
			yield(model.Chunk{}, err)
			return
		}
		var d decoder
		provider.Pump(m.svc.NewStreaming(ctx, params),
			func(e sdk.MessageStreamEventUnion) bool { d.events++; return d.decode(e, yield) },
			func(err error) error { return m.streamErr(ctx, err, &d) },
			d.final, yield)
	}
}

// block is what the decoder remembers of a tool_use content block.
type block struct {
	index   int64  // the content block index
	call    int    // the tool call's index among the answer's calls
	start   string // the input given at content_block_start, if not "{}"
	deltaed bool   // input_json_delta fragments arrived
}

type decoder struct {
	events  int
	stopped bool // message_stop arrived
	stop    sdk.StopReason
	usage   model.Usage
	cacheW  int64
	blocks  []block
}

func (d *decoder) tool(index int64) *block {
	for i := range d.blocks {
		if d.blocks[i].index == index {
			return &d.blocks[i]
		}
	}
	return nil
}

func (d *decoder) decode(e sdk.MessageStreamEventUnion, yield func(model.Chunk, error) bool) bool {
	switch e.Type {
	case "message_start":
		u := e.Message.Usage
		d.usage.InputTokens = u.InputTokens
		d.usage.CachedInputTokens = u.CacheReadInputTokens
		d.cacheW = u.CacheCreationInputTokens
		d.usage.OutputTokens = u.OutputTokens
	case "content_block_start":
		cb := &e.ContentBlock
		switch cb.Type {
		case "text":
			if cb.Text != "" {
				return yield(model.Chunk{TextDelta: cb.Text}, nil)
			}
		case "tool_use":
			b := block{index: e.Index, call: len(d.blocks)}
			if raw := cb.JSON.Input.Raw(); raw != "" && raw != "{}" && raw != "null" {
				b.start = raw
			}
			d.blocks = append(d.blocks, b)
			return yield(model.Chunk{ToolCall: &model.ToolCallDelta{Index: b.call, ID: cb.ID, Name: cb.Name}}, nil)
		}
	case "content_block_delta":
		switch e.Delta.Type {
		case "text_delta":
			if e.Delta.Text != "" {
				return yield(model.Chunk{TextDelta: e.Delta.Text}, nil)
			}
		case "input_json_delta":
			b := d.tool(e.Index)
			if b == nil || e.Delta.PartialJSON == "" {
				return true
			}
			b.deltaed = true
			return yield(model.Chunk{ToolCall: &model.ToolCallDelta{Index: b.call, ArgumentsDelta: e.Delta.PartialJSON}}, nil)
		}
	case "content_block_stop":
		// A tool_use block whose input came whole at its start (as some
		// gateways send it) gets that input now.
		if b := d.tool(e.Index); b != nil && !b.deltaed && b.start != "" {
			return yield(model.Chunk{ToolCall: &model.ToolCallDelta{Index: b.call, ArgumentsDelta: b.start}}, nil)
		}
	case "message_delta":
		d.stop = e.Delta.StopReason
		u := &e.Usage
		// message_delta's counts are cumulative; input counts appear here
		// only in some API versions and gateways.
		d.usage.OutputTokens = u.OutputTokens
		if u.JSON.InputTokens.Valid() {
			d.usage.InputTokens = u.InputTokens
		}
		if u.JSON.CacheReadInputTokens.Valid() {
			d.usage.CachedInputTokens = u.CacheReadInputTokens
		}
		if u.JSON.CacheCreationInputTokens.Valid() {
			d.cacheW = u.CacheCreationInputTokens
		}
	case "message_stop":
		d.stopped = true
	}
	return true
}

// final is the last chunk: usage and finish reason. Anthropic's
// input_tokens excludes cache reads and cache writes; loom's InputTokens is
// every input token, so both are added, and CachedInputTokens is the reads.
func (d *decoder) final() model.Chunk {
	u := d.usage
	u.InputTokens += u.CachedInputTokens + d.cacheW
	return model.Chunk{Usage: &u, FinishReason: finishReason(d.stop)}
}

func finishReason(r sdk.StopReason) model.FinishReason {
	switch r {
	case sdk.StopReasonEndTurn, sdk.StopReasonStopSequence:
		return model.FinishStop
	case sdk.StopReasonMaxTokens, sdk.StopReasonModelContextWindowExceeded:
		return model.FinishLength
	case sdk.StopReasonToolUse:
		return model.FinishToolCalls
	case sdk.StopReasonRefusal:
		return model.FinishContentFilter
	}
	return model.FinishOther // pause_turn and reasons added later
}

// streamErr classifies how the stream ended (see provider.StreamErr): an
// error event mid-stream is the provider's error; a clean end is complete
// only after message_stop, the protocol's end marker.
func (m *Model) streamErr(ctx context.Context, err error, d *decoder) error {
	if cerr := provider.Cancelled(ctx, ProviderID); cerr != nil {
		return cerr
	}
	if err != nil {
		var apiErr *sdk.Error
		if errors.As(err, &apiErr) {
			return m.apiError(apiErr)
		}
		return provider.StreamErr(ctx, ProviderID, m.baseURL, err, d.events > 0, "message_stop")
	}
	if !d.stopped {
		return provider.Truncated(ProviderID, "message_stop", nil)
	}
	return nil
}
