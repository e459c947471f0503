package vector

import (
	"context"
	"fmt"

	"github.com/loomwork/loom/model"
)

// PrepareDocuments is what a store adapter does before it writes docs: it
// validates them, normalises their metadata, embeds (with emb) the texts of
// those without a vector, checks every vector against dims, and keeps the
// last document of each id, so that nothing is written when any document
// is invalid.
func PrepareDocuments(ctx context.Context, emb model.Embedder, dims int, docs []Document) ([]Document, error) {
	out := make([]Document, 0, len(docs))
	at := make(map[string]int, len(docs))
	var texts []string
	var embed []int
	for i, d := range docs {
		if d.ID == "" {
			return nil, fmt.Errorf("%w: document %d has an empty ID", ErrInvalidDocument, i)
		}
		if d.Vector == nil && d.Text == "" {
			return nil, fmt.Errorf("%w: document %q has neither Text nor Vector", ErrInvalidDocument, d.ID)
		}
		meta, err := NormalizeMetadata(d.Metadata)
		if err != nil {
			return nil, fmt.Errorf("document %q: %w", d.ID, err)
		}
		d.Metadata = meta
		if d.Vector == nil {
			if emb == nil {
				return nil, fmt.Errorf("%w: document %q has no Vector", ErrNoEmbedder, d.ID)
			}
			texts = append(texts, d.Text)
			embed = append(embed, len(out))
		}
		if j, ok := at[d.ID]; ok {
			out[j].ID = "" // replaced by this later document
		}
		at[d.ID] = len(out)
		out = append(out, d)
	}
	if len(texts) > 0 {
		vecs, err := emb.Embed(ctx, texts)
		if err != nil {
			return nil, fmt.Errorf("embed %d documents: %w", len(texts), err)
		}
		if len(vecs) != len(texts) {
			return nil, fmt.Errorf("embedder %s returned %d vectors for %d texts", emb.Name(), len(vecs), len(texts))
		}
		for i, j := range embed {
			out[j].Vector = vecs[i]
		}
	}
	kept := out[:0]
	for _, d := range out {
		if d.ID == "" {
			continue
		}
		what := fmt.Sprintf("document %q", d.ID)
		if err := CheckDimensions(what, dims, d.Vector); err != nil {
			return nil, err
		}
		if err := CheckVector(ErrInvalidDocument, what, d.Vector); err != nil {
			return nil, err
		}
		kept = append(kept, d)
	}
	return kept, nil
}

// PrepareQuery is what a store adapter does before it searches: it
// validates q, defaults K and returns the query vector, embedding q.Text
// with emb when q.Vector is nil, checked against dims.
func PrepareQuery(ctx context.Context, emb model.Embedder, dims int, q Query) (Query, []float32, error) {
	q, err := q.Prepare()
	if err != nil {
		return q, nil, err
	}
	v := q.Vector
	if v == nil {
		if emb == nil {
			return q, nil, fmt.Errorf("%w: the query has Text and no Vector", ErrNoEmbedder)
		}
		vs, err := emb.Embed(ctx, []string{q.Text})
		if err != nil {
			return q, nil, fmt.Errorf("embed the query: %w", err)
		}
		if len(vs) != 1 {
			return q, nil, fmt.Errorf("embedder %s returned %d vectors for 1 text", emb.Name(), len(vs))
		}
		v = vs[0]
		if err := CheckVector(ErrInvalidQuery, "query text's embedding", v); err != nil {
			return q, nil, err
		}
	}
	if err := CheckDimensions("query", dims, v); err != nil {
		return q, nil, err
	}
	return q, v, nil
}
