package vector

import (
	"fmt"
	"math"
)

// Document is one stored item.
type Document struct {
	// ID identifies the document; upserting an existing ID replaces it.
	ID string
	// Text is the document's content, returned with matches.
	Text string
	// Vector is the embedding. Nil: the store embeds Text with its
	// embedder. Stores may return it normalised to unit length, or nil
	// when the query did not ask for vectors.
	Vector []float32
	// Metadata holds strings, bools, numbers and []string; see
	// [NormalizeMetadata].
	Metadata map[string]any
}

// Match is a document found by [Store.Search].
type Match struct {
	Document
	// Score is the cosine similarity to the query, in [-1, 1]; higher is
	// closer.
	Score float32
}

// CheckVector rejects a vector that cannot be scored by cosine: one with a
// NaN or infinite element, or one of length zero (all zeros). what names
// its owner in the message; the error wraps sentinel.
func CheckVector(sentinel error, what string, v []float32) error {
	var sum float64
	for i, x := range v {
		f := float64(x)
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return fmt.Errorf("%w: %s: element %d is %v; vectors must be finite", sentinel, what, i, x)
		}
		sum += f * f
	}
	if sum == 0 {
		return fmt.Errorf("%w: %s: the vector is all zeros, so its cosine similarity is undefined", sentinel, what)
	}
	return nil
}
