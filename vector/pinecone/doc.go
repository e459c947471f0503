// Package pinecone is a [vector.Store] on a Pinecone index, through the
// official client github.com/pinecone-io/go-pinecone/v5 and its gRPC data
// plane.
//
// The caller creates the index (metric "cosine", the store's dimensions)
// and an [pinecone.IndexConnection] to it; [New] wraps the connection. The
// store does not own the connection: Close leaves it open.
//
// # Documents
//
// A document's text travels in its metadata under [Config.TextKey]
// ("loom_text" by default), so a document whose metadata already uses that
// key is rejected. Pinecone keeps up to 40 KB of metadata per record; a
// longer document fails with the server's error. Upserts are sent in
// batches of [Config.BatchSize]; every document is validated and embedded
// before the first batch, but a failure in a later batch leaves the earlier
// batches written, since Pinecone has no transactions.
//
// # Search and filters
//
// Search sends one Query with top_k = K and the filter, so Pinecone applies
// the filter before the top-K cut. Scores are Pinecone's cosine
// similarity; MinScore is applied to the returned matches. Pinecone
// returns at most 10000 matches per query, so a larger K is an error, and
// returns metadata and values with at most 1000, so for a larger K the
// store queries ids and scores and then fetches the records (a record
// deleted in between is left out).
//
// A [vector.Filter] maps onto Pinecone's filter language: Eq is $eq, In is
// $in (or $or of $eq when its values mix types, as Pinecone's $in takes
// strings or numbers), ranges are $gt, $gte, $lt and $lte, And and Or are
// $and and $or. Pinecone matches $eq and $in on a list field when any
// element matches, as the contract asks. Constant parts (In with no
// values, And or Or with no operands) are folded before the query, and a
// filter that can match nothing sends no query.
//
// # What was tested against a real server
//
// Nothing: no Pinecone server can be installed here. The conformance suite
// in vector/vectortest runs against a local gRPC server built from the
// descriptors the client registers (dynamicpb), which implements Upsert,
// Delete, Fetch and Query with cosine scoring, the filter operators above
// and Pinecone's limits on batch and top_k sizes, and
// asserts the requests the store sends. Two behaviours of the real service
// are therefore assumed, not observed: that $eq and $in match list
// elements and never match across types (a string against a number), and
// read-after-write visibility. Pinecone's serverless indexes are
// eventually consistent, so a search right after an upsert may not see it.
package pinecone
