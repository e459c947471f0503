// Package chroma is a [vector.Store] on a Chroma collection, through
// github.com/amikos-tech/chroma-go (the Go client Chroma lists; there is no
// official one) and Chroma's v2 REST API.
//
// The caller makes the client (chroma.NewHTTPClient) and keeps it; [Open]
// gets or creates the collection with cosine distance (hnsw:space =
// cosine) and refuses an existing collection with another space or
// dimension. The store passes its own vectors, so Chroma's embedding
// function is never called, and none is recorded in the collection.
//
// # Documents
//
// Chroma's upsert merges the metadata of an existing record with the new
// one, while the contract replaces it; so Upsert first reads the metadata
// keys of the ids it writes and sends the ones the new document lacks as
// null, which Chroma deletes. Two writers upserting one id at once may
// therefore leave a key that either would have removed. Upserts go in
// batches of [Config.BatchSize]; a failure in a later batch leaves the
// earlier ones written.
//
// # Search and filters
//
// Search sends one query with n_results = K and the filter as Chroma's
// where clause, which Chroma applies before the nearest-neighbour cut.
// Scores are 1 − Chroma's cosine distance. The filter maps onto where:
// Eq of a string is $or of $eq (a string field) and $contains (a list
// field), Eq of a bool or number is $eq, In is $or of those, ranges are
// $gt, $gte, $lt and $lte, And and Or are $and and $or. Numbers are sent in
// exponent form (3e+00), as chroma-go writes float metadata, so Chroma
// reads them as floats. Constant parts (In with no values, And or Or with
// no operands) are folded first, so every $and and $or has two or more
// operands, and a filter that can match nothing sends no query.
//
// # What was tested against a real server
//
// Nothing: Chroma's server does not run here (its binary needs a newer
// glibc). The conformance suite in vector/vectortest runs against a local
// fake of the v2 REST API (pre-flight, collections, upsert, get, query,
// delete) that merges metadata on upsert, applies the where operators
// above and scores by cosine distance, and that asserts the requests the
// store sends. So these behaviours of a real Chroma are assumed, not
// observed: $eq never matches a list field and $contains never matches a
// scalar, a string never equals a number, upsert merges metadata and null
// deletes a key.
package chroma
