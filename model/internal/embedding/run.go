package embedding

import (
	"context"

	"github.com/loomwork/loom/model"
)

// Info describes an embedder for [Run].
type Info struct {
	Provider  string
	Model     string
	Dims      int
	MaxItems  int                // the most texts in one request
	MaxTokens int                // the most estimated tokens in one request; 0: no limit
	Prices    map[string]float64 // list prices for [Cost]
	Estimated bool               // the provider reports no usage; batch estimates it
}

// Run embeds texts in batches with batch, one request after another, and
// returns the vectors in order. It records one span for the whole call and
// adds its usage and cost to totals. An empty texts makes no request.
func Run(ctx context.Context, info Info, totals *Totals, texts []string,
	batch func(ctx context.Context, texts []string) ([][]float32, model.Usage, error)) ([][]float32, error) {
	if len(texts) == 0 {
		return [][]float32{}, nil
	}
	batches := Batches(texts, info.MaxItems, info.MaxTokens)
	ctx, call := Start(ctx, info.Provider, info.Model, info.Dims, len(texts))
	out := make([][]float32, 0, len(texts))
	var usage model.Usage
	var err error
	for _, b := range batches {
		var vs [][]float32
		var u model.Usage
		vs, u, err = batch(ctx, texts[b[0]:b[1]])
		usage = usage.Add(u)
		if err != nil {
			break
		}
		out = append(out, vs...)
	}
	cost, priced := Cost(info.Provider, info.Model, usage, info.Prices)
	totals.Add(usage, cost)
	call.End(usage, info.Estimated, cost, priced, len(batches), err)
	if err != nil {
		return nil, err
	}
	return out, nil
}
