package openai

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/loomwork/loom/model"
	"github.com/loomwork/loom/model/internal/embedding"
	"github.com/loomwork/loom/model/internal/provider"
	sdk "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/packages/param"
)

// The limits of OpenAI's embeddings endpoint, per request.
const (
	// MaxEmbedBatch is the most inputs one request may carry.
	MaxEmbedBatch = 2048
	// MaxEmbedBatchTokens is the most tokens all inputs of one request may
	// add up to.
	MaxEmbedBatchTokens = 300_000
)

// defaultEmbeddingModels are the embedding models of the presets that have
// one: OpenAI's text-embedding-3-small, and the nomic embedding model that
// Ollama and LM Studio offer.
var defaultEmbeddingModels = map[string]string{
	"openai":   "text-embedding-3-small",
	"ollama":   "nomic-embed-text",
	"lmstudio": "text-embedding-nomic-embed-text-v1.5",
}

// nativeDimensions are the vector sizes of well-known embedding models, so
// that Dimensions is known before the first call.
var nativeDimensions = map[string]int{
	"text-embedding-3-small":               1536,
	"text-embedding-3-large":               3072,
	"text-embedding-ada-002":               1536,
	"nomic-embed-text":                     768,
	"text-embedding-nomic-embed-text-v1.5": 768,
	"mxbai-embed-large":                    1024,
	"all-minilm":                           384,
	"snowflake-arctic-embed":               1024,
	"bge-m3":                               1024,
}

// embeddingPrices are OpenAI's list prices for embeddings, in US dollars
// per million input tokens (standard tier, 2025–2026).
var embeddingPrices = map[string]float64{
	"text-embedding-3-small": 0.02,
	"text-embedding-3-large": 0.13,
	"text-embedding-ada-002": 0.10,
}

// EmbedConfig configures an [Embedder]. Zero values mean defaults; negative
// numbers are errors.
type EmbedConfig struct {
	// Dimensions is the size of the vectors. 0 means the model's own size,
	// known for OpenAI's models and the common Ollama and LM Studio ones;
	// other models must give it. A size other than the model's own is sent
	// as "dimensions", which text-embedding-3 models and some compatible
	// servers honour by shortening their vectors; a server that ignores it
	// fails the call with a model.ErrInvalidRequest naming both sizes.
	Dimensions int
	// BatchSize is the most texts sent in one request: 0 means
	// [MaxEmbedBatch]. Requests also stay under [MaxEmbedBatchTokens]
	// estimated tokens.
	BatchSize int
}

// Embedder embeds texts with the OpenAI embeddings API (POST /embeddings)
// or a compatible server's (Ollama, LM Studio, vLLM, …), through the
// official SDK, with the client, key, base URL, retries and errors of the
// chat [Model]. It implements model.Embedder and is safe for concurrent
// use.
//
// Each Embed call splits its texts into batches within the provider's
// limits, sends them in order, and records one "embeddings" span with the
// GenAI conventions, its token usage and estimated cost; [Embedder.Usage]
// and [Embedder.Cost] give the running totals.
type Embedder struct {
	m      *Model
	svc    sdk.EmbeddingService
	dims   int
	send   bool // send "dimensions": the size differs from the model's own
	batch  int
	totals embedding.Totals
}

var _ model.Embedder = (*Embedder)(nil)

// NewEmbedder returns an OpenAI embedder, as
// NewEmbedder("text-embedding-3-small", EmbedConfig{Dimensions: 512}); an
// empty name means text-embedding-3-small. Options are the chat model's
// (key, base URL, retries, HTTP client).
func NewEmbedder(name string, eo EmbedConfig, opts ...model.ClientOption) (*Embedder, error) {
	return NewEmbedderFor(OpenAIPreset(), name, eo, opts...)
}

// NewEmbedderFor returns an embedder of the provider p describes, as
// NewEmbedderFor(OllamaPreset(), "nomic-embed-text", EmbedConfig{}). An
// empty name means the preset's embedding model (OpenAI, Ollama and LM
// Studio have one). It makes no network call.
func NewEmbedderFor(p Preset, name string, eo EmbedConfig, opts ...model.ClientOption) (*Embedder, error) {
	if name == "" {
		name = defaultEmbeddingModels[p.ID]
	}
	if name == "" {
		return nil, fmt.Errorf("%s: %w: name the embedding model: the provider has no default", p.ID, model.ErrInvalidRequest)
	}
	switch {
	case eo.Dimensions < 0:
		return nil, fmt.Errorf("%s: %w", p.ID, &model.OptionError{Option: "Dimensions", Value: fmt.Sprint(eo.Dimensions), Range: "0 (the model's own size) or more"})
	case eo.BatchSize < 0:
		return nil, fmt.Errorf("%s: %w", p.ID, &model.OptionError{Option: "BatchSize", Value: fmt.Sprint(eo.BatchSize), Range: fmt.Sprintf("0 (%d) or more", MaxEmbedBatch)})
	case eo.BatchSize == 0:
		eo.BatchSize = MaxEmbedBatch
	}
	native := nativeDimensions[baseModelName(name)]
	dims := eo.Dimensions
	if dims == 0 {
		dims = native
	}
	if dims == 0 {
		return nil, fmt.Errorf("%s: %w: the size of %s's vectors is not known: set EmbedConfig.Dimensions", p.ID, model.ErrInvalidRequest, name)
	}
	m, err := NewFor(p, name, opts...)
	if err != nil {
		return nil, err
	}
	return &Embedder{
		m:     m,
		svc:   sdk.NewEmbeddingService(m.svc.Options...),
		dims:  dims,
		send:  dims != native,
		batch: min(eo.BatchSize, MaxEmbedBatch),
	}, nil
}

// baseModelName drops an Ollama tag: "nomic-embed-text:latest" is
// "nomic-embed-text".
func baseModelName(name string) string {
	base, _, _ := strings.Cut(strings.ToLower(name), ":")
	return base
}

// Dimensions returns the size of every vector.
func (e *Embedder) Dimensions() int { return e.dims }

// Name returns "provider:model", as "openai:text-embedding-3-small".
func (e *Embedder) Name() string { return e.m.preset.ID + ":" + e.m.name }

// Usage returns the tokens of every call so far.
func (e *Embedder) Usage() model.Usage { return e.totals.Usage() }

// Cost returns the estimated cost of every call so far in US dollars; 0
// for a model with no known price.
func (e *Embedder) Cost() float64 { return e.totals.Cost() }

// Embed returns one vector per text, in order, sending batches of at most
// EmbedConfig.BatchSize texts one after another. An empty texts makes no
// call. A failed batch fails the call (after the SDK's retries) with the
// chat model's errors: a *model.APIError for an HTTP error, ctx's error
// when cancelled.
func (e *Embedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	info := embedding.Info{
		Provider: e.m.preset.ID, Model: e.m.name, Dims: e.dims,
		MaxItems: e.batch, MaxTokens: MaxEmbedBatchTokens, Prices: embeddingPrices,
	}
	return embedding.Run(ctx, info, &e.totals, texts, e.embedBatch)
}

// embedBatch sends one request.
func (e *Embedder) embedBatch(ctx context.Context, texts []string) ([][]float32, model.Usage, error) {
	params := sdk.EmbeddingNewParams{
		Model:          e.m.name,
		Input:          sdk.EmbeddingNewParamsInputUnion{OfArrayOfStrings: texts},
		EncodingFormat: sdk.EmbeddingNewParamsEncodingFormatFloat,
	}
	if e.send {
		params.Dimensions = param.NewOpt(int64(e.dims))
	}
	res, err := e.svc.New(ctx, params)
	if err != nil {
		return nil, model.Usage{}, e.callErr(ctx, err)
	}
	u := model.Usage{InputTokens: res.Usage.PromptTokens}
	if len(res.Data) != len(texts) {
		return nil, u, fmt.Errorf("%s: %w: %d embeddings for %d inputs", e.m.preset.ID, model.ErrServer, len(res.Data), len(texts))
	}
	out := make([][]float32, len(texts))
	for _, d := range res.Data {
		i := int(d.Index)
		if i < 0 || i >= len(out) || out[i] != nil {
			return nil, u, fmt.Errorf("%s: %w: embedding index %d is out of range or repeated", e.m.preset.ID, model.ErrServer, d.Index)
		}
		if len(d.Embedding) != e.dims {
			return nil, u, fmt.Errorf("%s: %w: %s returned vectors of %d dimensions, not %d: set EmbedConfig.Dimensions to %d, or use a model that shortens its vectors",
				e.m.preset.ID, model.ErrInvalidRequest, e.m.name, len(d.Embedding), e.dims, len(d.Embedding))
		}
		v := make([]float32, len(d.Embedding))
		for j, x := range d.Embedding {
			v[j] = float32(x)
		}
		out[i] = v
	}
	return out, u, nil
}

// callErr maps an embeddings call's error as the chat model does: the
// shared transport has already turned HTTP failures into *model.APIError.
func (e *Embedder) callErr(ctx context.Context, err error) error {
	id := e.m.preset.ID
	if cerr := provider.Cancelled(ctx, id); cerr != nil {
		return fmt.Errorf("%s: embeddings: %w", id, cerr)
	}
	var apiErr *model.APIError
	if errors.As(err, &apiErr) {
		return fmt.Errorf("%s: embeddings: %w", id, err)
	}
	if provider.IsCtxErr(err) {
		return fmt.Errorf("%s: %w", id, err)
	}
	return fmt.Errorf("%s: embeddings request to %s failed: %w", id, e.m.baseURL, err)
}
