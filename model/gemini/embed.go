package gemini

import (
	"context"
	"fmt"
	"strings"

	"github.com/loomwork/loom/model"
	"github.com/loomwork/loom/model/internal/embedding"
	"google.golang.org/genai"
)

// DefaultEmbeddingModel is the embedding model used when none is named.
const DefaultEmbeddingModel = "gemini-embedding-001"

// MaxEmbedBatch is the most texts one batchEmbedContents request of the
// Gemini API may carry.
const MaxEmbedBatch = 100

// nativeDimensions are the vector sizes of Gemini's embedding models.
var nativeDimensions = map[string]int{
	"gemini-embedding-001": 3072,
	"text-embedding-004":   768,
	"embedding-001":        768,
}

// embeddingPrices are Google's list prices for embeddings, in US dollars
// per million input tokens (paid tier, 2025–2026).
var embeddingPrices = map[string]float64{
	"gemini-embedding-001": 0.15,
}

// EmbedConfig configures an [Embedder]. Zero values mean defaults; negative
// numbers are errors.
type EmbedConfig struct {
	// Dimensions is the size of the vectors. 0 means the model's own (3072
	// for gemini-embedding-001); another size is sent as
	// outputDimensionality, which gemini-embedding-001 honours (768 and
	// 1536 are the sizes Google recommends).
	Dimensions int
	// BatchSize is the most texts in one request: 0 means [MaxEmbedBatch].
	BatchSize int
	// TaskType tells the model what the vectors are for, as
	// "RETRIEVAL_DOCUMENT", "RETRIEVAL_QUERY" or "SEMANTIC_SIMILARITY";
	// "" sends none and the model embeds for general similarity.
	TaskType string
}

// Embedder embeds texts with the Gemini API (models/MODEL:batchEmbedContents)
// through the genai SDK, with the client, key, base URL, retries and errors
// of the chat [Model]. It implements model.Embedder and is safe for
// concurrent use.
//
// Each Embed call sends its texts in batches of at most [MaxEmbedBatch],
// in order, and records one "embeddings" span with the GenAI conventions.
// The Gemini API reports no token counts for embeddings, so usage is
// estimated from the texts' length (about three bytes a token) and the
// span marks it loom.usage.estimated; [Embedder.Usage] and [Embedder.Cost]
// give the running totals of those estimates.
type Embedder struct {
	m      *Model
	dims   int
	send   bool // send outputDimensionality
	batch  int
	task   string
	totals embedding.Totals
}

var _ model.Embedder = (*Embedder)(nil)

// NewEmbedder returns a Gemini embedder, as
// NewEmbedder("gemini-embedding-001", EmbedConfig{Dimensions: 768}); an
// empty name means [DefaultEmbeddingModel]. Options are the chat model's
// (key, base URL, retries, HTTP client). It makes no network call.
func NewEmbedder(name string, eo EmbedConfig, opts ...model.ClientOption) (*Embedder, error) {
	if name == "" {
		name = DefaultEmbeddingModel
	}
	name = strings.TrimPrefix(name, "models/")
	switch {
	case eo.Dimensions < 0:
		return nil, fmt.Errorf("%s: %w", ProviderID, &model.OptionError{Option: "Dimensions", Value: fmt.Sprint(eo.Dimensions), Range: "0 (the model's own size) or more"})
	case eo.BatchSize < 0:
		return nil, fmt.Errorf("%s: %w", ProviderID, &model.OptionError{Option: "BatchSize", Value: fmt.Sprint(eo.BatchSize), Range: fmt.Sprintf("0 (%d) or more", MaxEmbedBatch)})
	case eo.BatchSize == 0:
		eo.BatchSize = MaxEmbedBatch
	}
	native := nativeDimensions[name]
	dims := eo.Dimensions
	if dims == 0 {
		dims = native
	}
	if dims == 0 {
		return nil, fmt.Errorf("%s: %w: the size of %s's vectors is not known: set EmbedConfig.Dimensions", ProviderID, model.ErrInvalidRequest, name)
	}
	m, err := New(name, opts...)
	if err != nil {
		return nil, err
	}
	return &Embedder{m: m, dims: dims, send: dims != native, batch: min(eo.BatchSize, MaxEmbedBatch), task: eo.TaskType}, nil
}

// Dimensions returns the size of every vector.
func (e *Embedder) Dimensions() int { return e.dims }

// Name returns "gemini:MODEL".
func (e *Embedder) Name() string { return ProviderID + ":" + e.m.name }

// Usage returns the estimated tokens of every call so far.
func (e *Embedder) Usage() model.Usage { return e.totals.Usage() }

// Cost returns the estimated cost of every call so far in US dollars.
func (e *Embedder) Cost() float64 { return e.totals.Cost() }

// Embed returns one vector per text, in order. An empty texts makes no
// call. A failed batch fails the call (after the SDK's retries) with the
// chat model's errors.
func (e *Embedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	info := embedding.Info{
		Provider: ProviderID, Model: e.m.name, Dims: e.dims,
		MaxItems: e.batch, Prices: embeddingPrices, Estimated: true,
	}
	return embedding.Run(ctx, info, &e.totals, texts, e.embedBatch)
}

// embedBatch sends one batchEmbedContents request; its usage is estimated
// from the texts, since the Gemini API reports none. A failed request
// counts nothing.
func (e *Embedder) embedBatch(ctx context.Context, texts []string) ([][]float32, model.Usage, error) {
	contents := make([]*genai.Content, len(texts))
	for i, t := range texts {
		contents[i] = genai.NewContentFromText(t, genai.RoleUser)
	}
	cfg := &genai.EmbedContentConfig{TaskType: e.task}
	if e.send {
		cfg.OutputDimensionality = genai.Ptr(int32(e.dims))
	}
	res, err := e.m.models.EmbedContent(ctx, e.m.name, contents, cfg)
	if err != nil {
		return nil, model.Usage{}, e.m.streamErr(ctx, err, &decoder{m: e.m})
	}
	if len(res.Embeddings) != len(texts) {
		return nil, model.Usage{}, fmt.Errorf("%s: %w: %d embeddings for %d inputs", ProviderID, model.ErrServer, len(res.Embeddings), len(texts))
	}
	out := make([][]float32, len(texts))
	for i, emb := range res.Embeddings {
		if emb == nil || len(emb.Values) != e.dims {
			got := 0
			if emb != nil {
				got = len(emb.Values)
			}
			return nil, model.Usage{}, fmt.Errorf("%s: %w: %s returned a vector of %d dimensions, not %d: set EmbedConfig.Dimensions to a size the model supports",
				ProviderID, model.ErrInvalidRequest, e.m.name, got, e.dims)
		}
		out[i] = emb.Values
	}
	var u model.Usage
	for _, t := range texts {
		u.InputTokens += int64(embedding.EstimateTokens(t))
	}
	return out, u, nil
}
