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
// one, while the contract replaces it; so Upsert sends every key the new
// document lacks as null, which Chroma deletes (and which a new record
// ignores). The keys come from the schema the server reports with the
// collection, which lists every metadata key ever written to it: one read
// of the collection per Upsert call, and no read of records. A server that
// reports no schema (releases before schemas) gets the old way: the
// stored metadata keys of each batch's ids are read before it is written.
// Either way, two writers upserting one id at once may leave a key that
// either would have removed.
//
// # Batches
//
// Every request that carries records or ids (upsert, delete, and the read
// of stored metadata on a server without schemas) carries at most
// [Store.BatchSize] of them: [Config.BatchSize] (default
// [DefaultBatchSize]) capped at the max_batch_size the server reports in
// its pre-flight checks, read once by [Open] (5,461 on a default server).
// A larger BatchSize is capped, not refused. When the pre-flight checks
// fail or report no limit (or the client is not chroma-go's HTTP client),
// Open still succeeds and caps at [DefaultMaxBatchSize]. A call larger than one batch is several
// requests, not a transaction: a failure in a later request leaves the
// earlier ones written or deleted. Search sends one query embedding, so
// it is always one request.
//
// # Search and filters
//
// Search sends one query with n_results = K and the filter as Chroma's
// where clause, which Chroma applies before the nearest-neighbour cut.
// A query that reaches a collection's vector index before the server has
// written it to disk ("Nothing found on disk", chroma-core/chroma#4212), or
// meets an id the index lists before its record can be read ("Error
// finding id", seen under concurrent writes), is sent again, up to 7 times
// over about 1.3 s.
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
// The conformance suite in vector/vectortest runs against a real Chroma
// server (CI starts one from npm's chromadb 3.5.0, whose CLI embeds the
// server: .ci/chroma.sh, TestConformanceRealServer) and against a local fake
// of the v2 REST API (pre-flight, collections, upsert, get, query, delete)
// that asserts the requests the store sends. The fake follows what the real
// server was seen to do: it merges metadata on upsert and deletes a key sent
// as null, refuses a request carrying more records, ids or query
// embeddings than the max_batch_size it reports (5,461 by default, as a
// default server; a test sets it lower to see every operation split),
// reports a collection's dimension once it holds
// a record, and compares ids and values exactly, white space and case
// included. Metadata keys starting with '#' or '$', which the real server
// refuses with an untyped 400, are refused before any request by
// [vector.NormalizeMetadata], and an empty list, which the server drops, is
// left out there too, so every store reads back the same.
//
// The local server (chromadb 3.5.0's CLI) was seen to accept larger
// requests over REST, 20,000 records in one upsert; the limit is kept by
// Chroma's clients, chroma-go among them, which refuses an upsert or delete
// above it before sending. The store stays within the reported limit
// whether or not the server enforces it. TestRealServerBatchLimit
// checks on the real server that the reported limit is read and that
// upsert, replacement and delete of more records than one request carries
// succeed.
//
// TestRealServerSchemaListsKeys checks on the real server what Upsert
// relies on to skip reading records: the collection's schema lists every
// metadata key at once and keeps it after records drop it.
package chroma
