package vector

import (
	"context"
	"fmt"
	"hash/fnv"
	"math"
	"strings"
	"unicode"

	"github.com/loomwork/loom/model"
)

// DefaultHashDimensions is the size of a [HashEmbedder] made with 0.
const DefaultHashDimensions = 256

// HashEmbedder is a deterministic offline [model.Embedder] by feature
// hashing: each lower-cased word, each pair of adjacent words and each
// character trigram of a word adds a signed weight to one of its
// dimensions, chosen by an FNV-1a hash, and the vector is L2-normalised.
//
// It is lexical, not semantic: texts score high when they share words and
// word pieces ("parse", "parser", "parsing"), and a synonym with no shared
// letters ("car", "automobile") scores near zero. It needs no network and
// no key, so it serves tests and keyless demos. For semantic search use a
// provider's embedder (model/openai, model/gemini); no offline semantic
// model is installable in loom's build environment (npm, Go and Debian
// packages all download weights at run time), so none is bundled.
//
// A text with no letters or digits is hashed by its characters; the empty
// text embeds to a vector of zeros, which stores reject.
type HashEmbedder struct {
	dims int
}

var _ model.Embedder = (*HashEmbedder)(nil)

// NewHashEmbedder returns a HashEmbedder of dims dimensions: 0 means
// [DefaultHashDimensions]; negative is an error.
func NewHashEmbedder(dims int) (*HashEmbedder, error) {
	switch {
	case dims < 0:
		return nil, fmt.Errorf("vector: hash embedder dimensions %d: use 0 for %d or a positive size", dims, DefaultHashDimensions)
	case dims == 0:
		dims = DefaultHashDimensions
	}
	return &HashEmbedder{dims: dims}, nil
}

// Dimensions returns the length of every vector.
func (h *HashEmbedder) Dimensions() int { return h.dims }

// Name returns "hash:<dims>".
func (h *HashEmbedder) Name() string { return fmt.Sprintf("hash:%d", h.dims) }

// Embed returns one unit vector per text. It fails only when ctx is done.
func (h *HashEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	for i, t := range texts {
		if i%64 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		out[i] = h.EmbedOne(t)
	}
	return out, nil
}

// EmbedOne returns the unit vector of one text.
func (h *HashEmbedder) EmbedOne(text string) []float32 {
	acc := make([]float64, h.dims)
	words := strings.FieldsFunc(strings.ToLower(text), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	})
	if len(words) == 0 {
		if t := strings.TrimSpace(text); t != "" {
			words = []string{t}
		}
	}
	for i, w := range words {
		h.add(acc, "w:"+w, 1)
		if i > 0 {
			h.add(acc, "b:"+words[i-1]+" "+w, 0.5)
		}
		r := []rune("^" + w + "$")
		for j := 0; j+3 <= len(r); j++ {
			h.add(acc, "c:"+string(r[j:j+3]), 0.25)
		}
	}
	var sum float64
	for _, x := range acc {
		sum += x * x
	}
	v := make([]float32, h.dims)
	if sum == 0 {
		return v
	}
	inv := 1 / math.Sqrt(sum)
	for i, x := range acc {
		v[i] = float32(x * inv)
	}
	return v
}

// add hashes feature to a dimension and a sign and adds w there.
func (h *HashEmbedder) add(acc []float64, feature string, w float64) {
	f := fnv.New64a()
	_, _ = f.Write([]byte(feature))
	s := f.Sum64()
	i := int(s % uint64(h.dims))
	if s>>63 == 1 {
		w = -w
	}
	acc[i] += w
}
