package chroma

import (
	"context"
	"fmt"

	"github.com/amikos-tech/chroma-go/pkg/embeddings"

	"github.com/loomwork/loom/model"
	"github.com/loomwork/loom/vector"
)

// embedFunc gives chroma-go an embedding function, so that it does not
// build its default one (which downloads a model). The store always sends
// vectors, so chroma-go calls it only for texts sent without one, which
// the store never does.
type embedFunc struct{ emb model.Embedder }

var _ embeddings.EmbeddingFunction = embedFunc{}

func (e embedFunc) EmbedDocuments(ctx context.Context, texts []string) ([]embeddings.Embedding, error) {
	if e.emb == nil {
		return nil, fmt.Errorf("chroma: %w", vector.ErrNoEmbedder)
	}
	vs, err := e.emb.Embed(ctx, texts)
	if err != nil {
		return nil, err
	}
	out := make([]embeddings.Embedding, len(vs))
	for i, v := range vs {
		out[i] = embeddings.NewEmbeddingFromFloat32(v)
	}
	return out, nil
}

func (e embedFunc) EmbedQuery(ctx context.Context, text string) (embeddings.Embedding, error) {
	vs, err := e.EmbedDocuments(ctx, []string{text})
	if err != nil {
		return nil, err
	}
	return vs[0], nil
}

func (embedFunc) Name() string { return "loom" }
func (embedFunc) GetConfig() embeddings.EmbeddingFunctionConfig {
	return embeddings.EmbeddingFunctionConfig{}
}
func (embedFunc) DefaultSpace() embeddings.DistanceMetric { return embeddings.COSINE }
func (embedFunc) SupportedSpaces() []embeddings.DistanceMetric {
	return []embeddings.DistanceMetric{embeddings.COSINE}
}
