package vector

import "context"

// Store holds documents of one dimension and finds the closest to a query.
// Implementations must be safe for concurrent use and pass the suite in
// package vector/vectortest.
type Store interface {
	// Upsert stores docs, replacing any document with the same ID, so an
	// ID is stored once; within one call the last document of an ID wins.
	// Documents with a nil Vector are embedded from their Text. Nothing is
	// stored when any document is invalid.
	Upsert(ctx context.Context, docs ...Document) error
	// Delete removes the documents with these ids; unknown ids are
	// ignored.
	Delete(ctx context.Context, ids ...string) error
	// Search returns at most q.K matches scoring at least q.MinScore and
	// passing q.Filter, best first. The filter applies before the top-K
	// cut.
	Search(ctx context.Context, q Query) ([]Match, error)
	// Dimensions returns the length of every stored vector.
	Dimensions() int
	// Close releases the store; later calls fail with [ErrClosed], and a
	// second Close returns nil.
	Close() error
}
