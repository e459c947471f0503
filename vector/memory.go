package vector

import "fmt"

// Memory is an exact, in-process vector store. Made by [NewMemory] it keeps
// nothing after the process ends; made by [NewPersistentMemory] it writes
// each change through a [Persister] (vector/sqlite keeps a SQLite file).
//
// Vectors are held normalised to unit length in one contiguous float32
// array (or int8 codes with [MemoryConfig.Int8]), and every search scans all of
// them with an unrolled dot product, in parallel for large stores. That
// is exact and fast up to a few hundred thousand vectors; see
// bench/README.md for figures.
//
// Memory is safe for concurrent use: searches share a read lock and run in
// parallel with each other; Upsert, Delete and Close take the write lock,
// so a write waits for running searches and a search sees every write that
// returned before it started. Embedding happens before the lock is taken.
type Memory struct {
	*local
}

var _ Store = (*Memory)(nil)

// NewMemory returns an empty in-memory store. Its dimensions come from
// opts.Dimensions or, when that is zero, from opts.Embedder; one of the
// two is required.
func NewMemory(opts MemoryConfig) (*Memory, error) {
	o, err := opts.resolve("NewMemory")
	if err != nil {
		return nil, err
	}
	if o.Dimensions == 0 {
		return nil, errNoDimensions("NewMemory")
	}
	return &Memory{local: newLocal(o)}, nil
}

func errNoDimensions(who string) error {
	return fmt.Errorf("vector: %s: no dimensions: set MemoryConfig.Dimensions or MemoryConfig.Embedder", who)
}
