package vector

import (
	"context"
	"fmt"
	"iter"
)

// StoredDocument is a document as the exact index keeps it: normalised
// metadata and a vector of unit length. A [Persister] writes it and gives
// it back when the store opens again.
type StoredDocument struct {
	ID       string
	Text     string
	Metadata map[string]any
	// Vector has unit length. In a call to [Persister.Upsert] it is valid
	// only during the call.
	Vector []float32
}

// Persister keeps the changes of a persistent [Memory] durably. Each
// change is written before the in-memory index applies it, so the index
// never holds what the persister lost. Calls are made under the store's
// write lock, one at a time. Package vector/sqlite implements it.
type Persister interface {
	// Upsert writes docs, replacing documents with the same IDs, as one
	// change.
	Upsert(ctx context.Context, docs []StoredDocument) error
	// Delete removes the documents with these ids as one change.
	Delete(ctx context.Context, ids []string) error
	// Close releases the persister; the store calls it once, from Close.
	Close() error
}

// Persistence makes a [Memory] durable: its changes go to Persister first,
// and Stored fills its index when it opens.
type Persistence struct {
	// Persister writes each change; required.
	Persister Persister
	// Count is how many documents Stored yields, to size the index at
	// once; 0 when unknown.
	Count int
	// Stored yields the documents the persister kept; nil for none. A
	// yielded error ends the load and fails [NewPersistentMemory].
	Stored iter.Seq2[StoredDocument, error]
}

// NewPersistentMemory returns a [Memory] that loads p.Stored and writes
// every later change through p.Persister before applying it. Dimensions
// come from opts as for [NewMemory]; each stored document must match them
// and have a finite, non-zero vector, which is scaled to unit length.
// The persister is not closed when loading fails.
func NewPersistentMemory(opts MemoryConfig, p Persistence) (*Memory, error) {
	o, err := opts.resolve("NewPersistentMemory")
	if err != nil {
		return nil, err
	}
	if o.Dimensions == 0 {
		return nil, errNoDimensions("NewPersistentMemory")
	}
	if p.Persister == nil {
		return nil, fmt.Errorf("vector: NewPersistentMemory: Persistence.Persister is nil; use NewMemory for a store that keeps nothing")
	}
	if p.Count < 0 {
		return nil, fmt.Errorf("vector: NewPersistentMemory: Persistence.Count is %d; use 0 when unknown or the number of stored documents", p.Count)
	}
	l := newLocal(o)
	if p.Stored != nil {
		l.idx.reserve(p.Count)
		for d, err := range p.Stored {
			if err != nil {
				return nil, fmt.Errorf("vector: load the stored documents: %w", err)
			}
			if err := l.restore(d); err != nil {
				return nil, fmt.Errorf("vector: load the stored documents: %w", err)
			}
		}
	}
	l.persist = p.Persister
	return &Memory{local: l}, nil
}

// restore puts a stored document into the index after checking it.
func (s *local) restore(d StoredDocument) error {
	what := func() string { return fmt.Sprintf("stored document %q", d.ID) }
	if d.ID == "" {
		return fmt.Errorf("%w: a stored document has an empty ID", ErrInvalidDocument)
	}
	if len(d.Vector) != s.dims {
		return CheckDimensions(what(), s.dims, d.Vector)
	}
	inv, err := unitScale(ErrInvalidDocument, what, d.Vector)
	if err != nil {
		return err
	}
	md, err := NormalizeMetadata(d.Metadata)
	if err != nil {
		return fmt.Errorf("%s: %w", what(), err)
	}
	s.idx.put(entry{id: d.ID, text: d.Text, metadata: md}, d.Vector, inv)
	return nil
}

// stored returns rows as stored documents with unit vectors, all in one
// buffer.
func stored(rows []row, dims int) []StoredDocument {
	buf := make([]float32, len(rows)*dims)
	docs := make([]StoredDocument, len(rows))
	for i, r := range rows {
		v := buf[i*dims : (i+1)*dims : (i+1)*dims]
		scaleInto(v, r.vec, r.inv)
		docs[i] = StoredDocument{ID: r.id, Text: r.text, Metadata: r.metadata, Vector: v}
	}
	return docs
}
