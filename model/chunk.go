package model

import "fmt"

// Chunk is one piece of a streamed answer. A chunk carries any mix of its
// fields; unset fields are zero.
type Chunk struct {
	// TextDelta is the next piece of the answer's text.
	TextDelta string
	// ToolCall is a fragment of a tool call, or a whole call.
	ToolCall *ToolCallDelta
	// Usage is a token count to add to the call's usage. Providers that learn
	// counts piecemeal (input first, output at the end) emit each piece once.
	Usage *Usage
	// FinishReason is set on the chunk that ends the answer.
	FinishReason FinishReason
}

// ToolCallDelta is a fragment of a tool call. Fragments of one call share an
// Index; the first usually carries ID and Name, and each carries the next
// piece of the JSON arguments. A provider that receives whole calls emits one
// delta per call with everything set.
type ToolCallDelta struct {
	Index          int
	ID             string
	Name           string
	ArgumentsDelta string
}

// FinishReason says why the model stopped.
type FinishReason string

// The finish reasons, normalised across providers.
const (
	FinishStop          FinishReason = "stop"           // a natural end or a stop sequence
	FinishLength        FinishReason = "length"         // the output token limit
	FinishToolCalls     FinishReason = "tool_calls"     // the model wants tools run
	FinishContentFilter FinishReason = "content_filter" // the provider withheld output
	FinishOther         FinishReason = "other"          // anything else the provider reports
)

// Err returns an error wrapping [ErrOutputLimit] for [FinishLength], and nil
// for every other reason, so a caller can treat an answer cut at the token
// limit as a failure with one check:
//
//	if err := resp.FinishReason.Err(); err != nil { ... }
func (f FinishReason) Err() error {
	if f == FinishLength {
		return fmt.Errorf("%w: raise Options.MaxOutputTokens or ask for a shorter answer", ErrOutputLimit)
	}
	return nil
}
