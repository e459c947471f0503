package vector

import (
	"fmt"

	"github.com/loomwork/loom/model"
)

// MemoryConfig configures the embedded stores: [NewMemory],
// [NewPersistentMemory] and the stores built on it (vector/sqlite). Zero
// values mean defaults; negative numbers are errors.
type MemoryConfig struct {
	// Dimensions is the length of every vector: 0 means the embedder's (or,
	// for a persistent store, the stored collection's).
	Dimensions int
	// Embedder embeds documents and queries given as text. Nil: every
	// document and query must carry a Vector, or fail with [ErrNoEmbedder].
	Embedder model.Embedder
	// Int8 keeps each vector as int8 codes with one scale per vector
	// instead of float32: a quarter of the memory and of the bytes each
	// search reads, and approximate scores (typically within 0.01; see
	// bench/README.md for recall@10 against exact search). Returned vectors
	// are decoded codes. A [Persister] receives float32 either way, so a
	// persistent collection can be reopened in the other mode.
	Int8 bool
	// Parallelism is the most goroutines one search uses: 0 means
	// GOMAXPROCS. Searches over fewer than about 256k vector elements run
	// on the calling goroutine.
	Parallelism int
}

// Resolve checks o and returns it with its defaults filled in: the
// dimensions from the embedder when zero, and the parallelism. A store
// built on [NewPersistentMemory] calls it before it opens what it keeps,
// to learn the dimensions and refuse bad options early.
func (o MemoryConfig) Resolve() (MemoryConfig, error) { return o.resolve("MemoryConfig") }

// resolve checks o and fills in its defaults; who names the caller in
// errors.
func (o MemoryConfig) resolve(who string) (MemoryConfig, error) {
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
