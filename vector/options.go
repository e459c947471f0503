package vector

import (
	"fmt"

	"github.com/loomwork/loom/model"
)

// Options configure the embedded stores, [NewMemory] and [OpenSQLite].
// Zero values mean defaults; negative numbers are errors.
type Options struct {
	// Dimensions is the length of every vector: 0 means the embedder's (or,
	// for [OpenSQLite], the stored collection's).
	Dimensions int
	// Embedder embeds documents and queries given as text. Nil: every
	// document and query must carry a Vector, or fail with [ErrNoEmbedder].
	Embedder model.Embedder
	// Int8 keeps each vector as int8 codes with one scale per vector
	// instead of float32: a quarter of the memory and of the bytes each
	// search reads, and approximate scores (typically within 0.01; see
	// bench/README.md for recall@10 against exact search). Returned vectors
	// are decoded codes. [SQLite] stores float32 either way, so a
	// collection can be reopened in the other mode.
	Int8 bool
	// Parallelism is the most goroutines one search uses: 0 means
	// GOMAXPROCS. Searches over fewer than about 256k vector elements run
	// on the calling goroutine.
	Parallelism int
}

// resolve checks o and fills in its defaults.
func (o Options) resolve(who string) (Options, error) {
	if o.Dimensions < 0 {
		return o, fmt.Errorf("vector: %s: Dimensions is %d; use 0 for the embedder's or a positive size", who, o.Dimensions)
	}
	if o.Parallelism < 0 {
		return o, fmt.Errorf("vector: %s: Parallelism is %d; use 0 for GOMAXPROCS or a positive count", who, o.Parallelism)
	}
	if o.Parallelism == 0 {
		o.Parallelism = defaultWorkers()
	}
	if o.Embedder != nil {
		ed := o.Embedder.Dimensions()
		switch {
		case o.Dimensions == 0:
			o.Dimensions = ed
		case o.Dimensions != ed:
			return o, fmt.Errorf("vector: %s: %w", who, &DimensionError{Want: o.Dimensions, Got: ed, What: "embedder " + o.Embedder.Name()})
		}
	}
	return o, nil
}
