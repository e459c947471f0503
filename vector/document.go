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

// unitScale returns the factor that scales v to unit length, or the error
// of [CheckVector] naming what(). It sums the squares with the dot kernel
// and looks for the bad element only when the sum is not finite.
func unitScale(sentinel error, what func() string, v []float32) (float32, error) {
	ss := dot(v, v)
	if ss != 0 && !math.IsNaN(float64(ss)) && !math.IsInf(float64(ss), 0) {
		return float32(1 / math.Sqrt(float64(ss))), nil
	}
	if err := CheckVector(sentinel, what(), v); err != nil {
		return 0, err
	}
	// Finite elements whose squares overflow float32: sum in float64.
	var s64 float64
	for _, x := range v {
		s64 += float64(x) * float64(x)
	}
	return float32(1 / math.Sqrt(s64)), nil
}

// scaleInto writes v*inv to dst.
func scaleInto(dst, v []float32, inv float32) {
	dst = dst[:len(v)]
	for i, x := range v {
		dst[i] = x * inv
	}
}
