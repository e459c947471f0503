package model

import (
	"context"
	"iter"
)

// Model is a chat model. Stream sends the request and yields the answer as
// it arrives. The sequence ends after the final chunk, or with a non-nil
// error (after which nothing more is yielded). Breaking out of the loop early
// cancels the call and releases its resources; no goroutine outlives it.
//
// Implementations must be safe for concurrent use.
type Model interface {
	// Provider returns the provider id, as "openai".
	Provider() string
	// Name returns the model name, as "gpt-4o-mini".
	Name() string
	// Stream sends req and yields the answer's chunks.
	Stream(ctx context.Context, req Request) iter.Seq2[Chunk, error]
}

// Generate sends req and returns the whole answer; it is [Collect] over
// [Model.Stream].
func Generate(ctx context.Context, m Model, req Request) (*Response, error) {
	return Collect(m.Stream(ctx, req))
}
