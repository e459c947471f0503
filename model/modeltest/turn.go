package modeltest

import (
	"encoding/json"
	"fmt"

	"github.com/loomwork/loom/model"
)

// Turn is one scripted answer. Build turns with [Text], [TextDeltas],
// [ToolCalls], [JSON], [Error], [Chunks] or [Func].
type Turn struct {
	chunks []model.Chunk
	err    error // yielded after the chunks
	fn     func(model.Request) Turn
}

// Text answers with text in one chunk, finishing with "stop".
func Text(s string) Turn {
	return Turn{chunks: []model.Chunk{{TextDelta: s, FinishReason: model.FinishStop}}}
}

// TextDeltas answers with text streamed as the given pieces, in order.
func TextDeltas(pieces ...string) Turn {
	cs := make([]model.Chunk, 0, len(pieces)+1)
	for _, p := range pieces {
		cs = append(cs, model.Chunk{TextDelta: p})
	}
	cs = append(cs, model.Chunk{FinishReason: model.FinishStop})
	return Turn{chunks: cs}
}

// Call returns a tool call with the given id, tool name and JSON arguments.
func Call(id, name, args string) model.ToolCall {
	return model.ToolCall{ID: id, Name: name, Arguments: json.RawMessage(args)}
}

// ToolCalls answers with the given tool calls, each as one whole delta,
// finishing with "tool_calls".
func ToolCalls(calls ...model.ToolCall) Turn {
	cs := make([]model.Chunk, 0, len(calls)+1)
	for i, c := range calls {
		cs = append(cs, model.Chunk{ToolCall: &model.ToolCallDelta{Index: i, ID: c.ID, Name: c.Name, ArgumentsDelta: string(c.Arguments)}})
	}
	cs = append(cs, model.Chunk{FinishReason: model.FinishToolCalls})
	return Turn{chunks: cs}
}

// JSON answers with v encoded as JSON text, as a model using structured
// output does. A value that cannot be encoded yields an error turn.
func JSON(v any) Turn {
	b, err := json.Marshal(v)
	if err != nil {
		return Error(fmt.Errorf("modeltest: JSON turn: %w", err))
	}
	return Text(string(b))
}

// Error answers with err before any chunk.
func Error(err error) Turn { return Turn{err: err} }

// Chunks answers with an explicit chunk sequence.
func Chunks(chunks ...model.Chunk) Turn { return Turn{chunks: chunks} }

// Func computes the turn from the request, when it is made. Use it for
// answers that depend on the request or for synchronising concurrent calls.
func Func(fn func(req model.Request) Turn) Turn { return Turn{fn: fn} }

// ThenError returns the turn with err yielded after its chunks: an error
// mid-stream.
func (t Turn) ThenError(err error) Turn {
	t.err = err
	return t
}

// WithUsage returns the turn with a usage chunk added before its end.
func (t Turn) WithUsage(input, output int64) Turn {
	return t.WithFullUsage(model.Usage{InputTokens: input, OutputTokens: output})
}

// WithFullUsage returns the turn with the given usage chunk added.
func (t Turn) WithFullUsage(u model.Usage) Turn {
	cs := make([]model.Chunk, 0, len(t.chunks)+1)
	cs = append(cs, t.chunks...)
	cs = append(cs, model.Chunk{Usage: &u})
	t.chunks = cs
	return t
}
