package vector

import (
	"errors"
	"fmt"
)

// Sentinel errors, for errors.Is.
var (
	// ErrDimension marks a vector whose length differs from the store's
	// dimensions; see [DimensionError].
	ErrDimension = errors.New("vector dimension mismatch")
	// ErrUnsupportedFilter marks a filter a store cannot apply exactly.
	// Stores fail with it rather than drop the filter or return fewer rows.
	ErrUnsupportedFilter = errors.New("filter not supported by this store")
	// ErrNoEmbedder marks a document or query given as text to a store that
	// has no embedder: give a Vector, or open the store with an embedder.
	ErrNoEmbedder = errors.New("store has no embedder for text")
	// ErrInvalidDocument marks a document that cannot be stored: an empty
	// ID, no text and no vector, a zero or non-finite vector, or a metadata
	// value of an unsupported type.
	ErrInvalidDocument = errors.New("invalid document")
	// ErrInvalidQuery marks a query that cannot run: a negative K, neither
	// text nor vector, a zero or non-finite vector, a MinScore outside
	// [-1, 1], or an invalid filter.
	ErrInvalidQuery = errors.New("invalid query")
	// ErrInvalidFilter marks a malformed filter: an unknown operator, an
	// empty field, a nil operand or a value of an unsupported type. It is
	// returned wrapped together with [ErrInvalidQuery].
	ErrInvalidFilter = errors.New("invalid filter")
	// ErrClosed marks a call on a closed store.
	ErrClosed = errors.New("vector store closed")
	// ErrEmbedderMismatch marks a persisted collection opened with another
	// embedder than the one that filled it; their vectors do not compare.
	ErrEmbedderMismatch = errors.New("collection was embedded with another embedder")
)

// DimensionError names both sizes of a dimension mismatch. It wraps
// [ErrDimension].
type DimensionError struct {
	Want int    // the store's dimensions
	Got  int    // the length of the vector given
	What string // what carried the vector, as `document "a"` or "query"
}

// Error returns the error's message.
func (e *DimensionError) Error() string {
	what := e.What
	if what == "" {
		what = "vector"
	}
	return fmt.Sprintf("%s has %d dimensions, the store has %d: use an embedder of %d dimensions or open a store of %d",
		what, e.Got, e.Want, e.Want, e.Got)
}

// Unwrap returns [ErrDimension].
func (e *DimensionError) Unwrap() error { return ErrDimension }

// CheckDimensions returns a [*DimensionError] when v does not have want
// elements. what names the vector's owner in the message.
func CheckDimensions(what string, want int, v []float32) error {
	if len(v) != want {
		return &DimensionError{Want: want, Got: len(v), What: what}
	}
	return nil
}
