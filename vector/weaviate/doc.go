// Package weaviate is a [vector.Store] on a Weaviate class, through the
// official client github.com/weaviate/weaviate-go-client/v5: REST for the
// schema and batches, GraphQL for search.
//
// The caller makes the client and keeps it. [Open] reads the class, or
// creates it with no vectorizer and cosine distance, and refuses an
// existing class with another distance.
//
// # Objects
//
// Weaviate identifies objects by UUID, so a document's ID becomes a UUID
// (SHA-1, name-based, see [ObjectID]) and is kept in the text property
// loom_id; its text is the property loom_text. Every metadata key is a
// property of the class, created on first use with one type: text
// (string), number, boolean or text[] ([]string), text with field
// tokenization so that equality compares whole values. Hence two limits
// the contract does not have: a metadata key must be a valid property name
// (a lower-case letter or underscore, then letters, digits and
// underscores), and one key holds one type across the class, so a
// document giving "n" a string after another gave it a number is rejected
// with [vector.ErrInvalidDocument]. Weaviate compares property and class
// names case-insensitively: a metadata key differing only in case from a
// property of the class (or from another key of the same upsert) is
// [vector.ErrInvalidDocument] naming both, and a Class differing only in
// case from an existing class is [ErrConfig] naming it. A batch upsert replaces whole objects,
// as the contract asks; a failure in a later batch leaves earlier ones
// written. Delete filters on the object UUIDs, not on loom_id, so it is
// exact: field tokenization trims white space, and a filter on loom_id
// for "a" would also delete " a" and "a ".
//
// # Search and filters
//
// Search sends one GraphQL Get with nearVector, limit K and the where
// filter, which Weaviate applies before the vector search's cut. Scores
// are 1 − Weaviate's cosine distance. The filter becomes a where clause
// using the class's property types: Eq of a string is Equal on a text
// property and ContainsAny on a text[] property, Eq of a number or bool is
// Equal on a number or boolean property, ranges are GreaterThan,
// GreaterThanEqual, LessThan and LessThanEqual on a number property, In is
// Or of those, And and Or are And and Or. A comparison whose property is
// missing, or has another type, can match nothing, so it is folded to
// false before the query rather than sent (Weaviate would reject it); a
// filter that can match nothing sends no query. Field tokenization trims
// white space, so the server's Equal and ContainsAny match "go " for "go";
// the store checks each match against the filter exactly and, when that
// drops some, sends the query again with a larger limit (up to [MaxK])
// until K exact matches remain or the server has no more. A filter whose
// values differ only in white space from many closer documents therefore
// costs more than one query, and past MaxK such candidates a search may
// return fewer than K. The store reads the class
// schema on Open and again when a filter or document names a property it
// does not know, so properties another process adds later are seen. K
// above [MaxK] (the server's default QUERY_MAXIMUM_RESULTS) is
// [vector.ErrInvalidQuery], checked before sending. A match carries its
// vector only for a query WithVectors (_additional.vector), which halves
// the server's query rate when asked.
//
// # What is tested against a real server
//
// CI (.ci/weaviate.sh) builds weaviate-server v1.39.3 with go install,
// starts it with anonymous access and no vectorizer, and runs the whole
// conformance suite of vector/vectortest against it
// (TestConformanceRealServer, and TestConformanceRealServerGRPC with
// batches over gRPC), plus TestRealServerFindings, which checks
// on that server what differs from the contract and how the store hides
// or types it: Delete("a") leaves " a" and "a " (the object UUID is
// exact where the field-tokenized loom_id is not); Eq and In on text and
// text[] properties are exact on white space and case; a metadata key
// differing only in case from a property is [vector.ErrInvalidDocument]
// naming both, also when another process added the property; a class
// differing only in case from an existing one is [ErrConfig] naming it;
// the server itself refuses a limit of MaxK+1 and takes MaxK, and the
// store's K above MaxK is [vector.ErrInvalidQuery]; an empty list in
// metadata is dropped. The suite also shows that a where filter on the
// path "id" with ContainsAny of UUIDs deletes exactly those objects and
// that objects are searchable as soon as the batch returns.
//
// The unit tests run the same suite against a local fake of Weaviate's
// REST API (/v1/.well-known/ready, /v1/meta, /v1/schema, /v1/batch/objects)
// and of the one GraphQL shape the store sends, which parses the query,
// applies the where operators above by property type, scores by cosine
// distance, answers the refusals above with the real server's statuses
// and messages, and asserts the requests. A client configured with gRPC
// sends batches over gRPC, which the fake does not serve;
// TestConformanceRealServerGRPC runs the whole suite through such a client
// against the real server (in a child process: the client's gRPC
// connection has no Close).
//
// # A client caveat
//
// weaviate-go-client v5.5.0 gives every connection a finalizer that sends
// on an unbuffered channel which only its OAuth refresh goroutine reads.
// Without OAuth, a client that is garbage collected parks the runtime's
// finalizer goroutine for good, and no later finalizer of the process
// runs. Keep one client for the life of the process.
package weaviate
