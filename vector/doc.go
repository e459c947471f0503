// Package vector is loom's vector store contract and its embedded stores:
// documents with ids, text, vectors and metadata; exact search by cosine
// similarity; metadata filters with exact semantics; retrieval as an agent
// tool; and an ingester that chunks, embeds and stores text.
//
// # The contract
//
// A [Store] holds [Document]s of one dimension. [Store.Upsert] overwrites a
// document with the same ID, so an id is stored once. [Store.Search] takes a
// [Query] by vector or by text (embedded with the store's [model.Embedder])
// and returns at most K [Match]es, best first, scored by cosine similarity
// (1 is the same direction, 0 orthogonal, -1 opposite).
//
// Every store passes the one conformance suite in package vector/vectortest,
// which covers overwrite, delete, K, MinScore, every filter operator,
// filtering before the top-K cut, dimension errors, concurrent readers and
// writers, and (for persistent stores) a restart.
//
// # Metadata
//
// Metadata values are strings, bools, numbers and lists of strings. Stores
// return every number as float64 and every list as []string; any other
// type is rejected on upsert with [ErrInvalidDocument] naming the field.
// [NormalizeMetadata] applies these rules.
//
// # Filters
//
// A [Filter] is an expression tree built with [Eq], [In], [And], [Or], [Gt],
// [Gte], [Lt] and [Lte], and its semantics are exact:
//
//   - a field that is missing from a document never matches any comparison;
//   - Eq and In compare strings, bools and numbers by type and value: the
//     string "1" does not equal the number 1, and numbers compare as float64;
//   - a []string field matches Eq or In when any of its elements matches;
//   - Gt, Gte, Lt and Lte apply to number fields only; any other field does
//     not match;
//   - In with no values matches nothing; And with no operands matches every
//     document; Or with no operands matches nothing.
//
// A store applies the filter before the top-K cut, so a filter that matches
// only documents far from the query still returns min(K, matching) of them.
// A store that cannot apply a filter exactly fails with
// [ErrUnsupportedFilter]; it never drops the filter or returns fewer rows.
// [Filter.Match] is the reference evaluator in Go.
package vector
