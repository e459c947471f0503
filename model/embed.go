package model

import "context"

// Embedder turns texts into vectors. Implementations must be safe for
// concurrent use.
//
// Providers implement it in model/openai (OpenAI and the compatible family:
// Ollama, LM Studio) and model/gemini. Anthropic has no embeddings API, so
// model/anthropic has no Embedder. vector.HashEmbedder is a deterministic
// offline embedder for tests and keyless demos; it is lexical, not semantic.
type Embedder interface {
	// Embed returns one vector per text, in order, each of length
	// Dimensions(). Implementations split texts into batches of their
	// provider's limit; an empty texts returns an empty result and no call.
	Embed(ctx context.Context, texts []string) ([][]float32, error)
	// Dimensions returns the length of every vector Embed returns.
	Dimensions() int
	// Name returns "provider:model", as "openai:text-embedding-3-small".
	Name() string
}
