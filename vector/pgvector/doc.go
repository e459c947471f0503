// Package pgvector is a [vector.Store] on PostgreSQL with the pgvector
// extension, through pgx/v5 and pgvector-go.
//
// # Schema
//
// [Open] creates, when missing, the extension, one table and two indexes:
//
//	CREATE TABLE <table> (
//	    id        text PRIMARY KEY,
//	    text      text NOT NULL,
//	    metadata  jsonb NOT NULL,
//	    embedding vector(<dims>) NOT NULL)
//	CREATE INDEX ON <table> USING hnsw (embedding vector_cosine_ops)
//	CREATE INDEX ON <table> USING gin (metadata jsonb_path_ops)
//
// pgvector indexes at most 2000 dimensions with HNSW; a wider table gets no
// HNSW index and every search is exact. A table an [Config.Exact] store
// creates gets no HNSW index either, since such a store never reads it and
// updating it is most of the cost of a write; a later Open without Exact
// creates it. Reopening a table checks that its column has the dimensions
// asked for.
//
// An Upsert writes its documents in one transaction, a thousand rows per
// INSERT statement (the columns sent as arrays); a Delete is one
// statement.
//
// # Search
//
// A search orders by cosine distance (the <=> operator) and scores each
// match as 1 − distance. It sends, in one batch and so one round trip,
// the query and set_config calls that turn on pgvector's iterative index
// scans (hnsw.iterative_scan = relaxed_order) and raise hnsw.ef_search to
// at least K, so a selective filter makes the index scan keep going
// instead of returning fewer rows; the batch runs as one implicit
// transaction up to its Sync, so the settings (local to the transaction)
// hold for that query alone. When the index
// still returns fewer than K rows (the scan hit hnsw.max_scan_tuples, or
// fewer rows match), the store runs the same query again with index scans
// off, which is exact. [Config.Exact] skips the index always. On
// pgvector older than 0.8, which has no iterative scans, the exact
// fallback alone keeps filtered searches from returning fewer rows. Rows are
// sorted by distance after the relaxed scan, so matches come best first.
// An HNSW search that returns K rows is approximate, as any HNSW index is:
// open with Exact for exact results at the cost of a sequential scan. For
// a selective filter the planner may instead read the rows through the GIN
// index on the metadata and sort them, which is exact.
//
// # Filters
//
// A [vector.Filter] becomes one SQL/JSON path predicate on the metadata
// column (metadata @@ '<predicate>'), which the GIN index can serve. Its
// lax mode gives the contract's semantics: a missing field yields no item
// and so no match; == compares strings, bools and numbers by type (a
// string never equals a number, numbers compare numerically); an array
// field is unwrapped, so a []string field matches when any element does;
// < and > on a non-number are unknown, which never matches. Values are
// written as JSON path literals and passed as a bind parameter, never
// spliced into SQL. Constant parts (In with no values, And or Or with no
// operands) are folded before the query, so a filter that can match
// nothing runs no query at all.
//
// # Connections
//
// Pass a DSN to let the store open and close its own pool, or a
// *pgxpool.Pool that the caller keeps and closes. Vectors travel in
// pgvector's text form, so a caller's pool needs no type registration.
//
// # What was tested against a real server
//
// Everything: the conformance suite in vector/vectortest runs against
// PostgreSQL 18 with pgvector 0.8 (PGlite, PostgreSQL compiled to WASM,
// started by .ci/vector.sh) when LOOM_TEST_PGVECTOR_DSN is set. It was not
// run against a native PostgreSQL server or a managed service.
package pgvector
