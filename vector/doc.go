// Package vector is loom's vector store contract and its embedded stores:
// documents with ids, text, vectors and metadata; exact search by cosine
// similarity; metadata filters with exact semantics; retrieval as an agent
// tool ([NewSearchTool]); and an [Ingester] that chunks, embeds and stores
// text. Conversation memory that recalls earlier turns by similarity is in
// package vector/recall.
//
// # Stores
//
// [NewMemory] is an exact in-process store; package vector/sqlite keeps the
// same index in a SQLite file (by default under the user cache directory),
// loaded back into memory when opened, so it survives restarts; any other
// [Persister] can do the same through [NewPersistentMemory]. Both keep
// unit vectors in contiguous float32 blocks scanned with an AVX2/FMA kernel
// (a portable Go loop elsewhere), in parallel for large stores, and apply
// filters before the top-K cut. [MemoryConfig.Int8] keeps int8 codes instead: a
// quarter of the memory and of the bytes scanned, with approximate scores
// and a measured recall@10 of about 0.99 (bench/README.md). Exact search
// suits up to a few hundred thousand vectors; beyond that use an adapter
// with an approximate index. Both stores are safe for concurrent use:
// searches share a read lock, writes take the write lock.
//
// The adapters live in their own modules so their clients stay out of
// loom's core: vector/pgvector (PostgreSQL with pgvector), vector/pinecone,
// vector/weaviate and vector/chroma.
//
// # Embedders
//
// A store embeds the text of documents and queries given without vectors
// with its [model.Embedder]: model/openai (OpenAI and the compatible
// family, Ollama and LM Studio included) and model/gemini have one on the
// official SDKs; Anthropic has no embeddings API. [HashEmbedder] is a
// deterministic offline embedder for tests and keyless demos. It is
// lexical, not semantic: no offline semantic model can be installed in
// loom's build environment, since the npm, Go and Debian packages that
// could run one all download their weights at run time.
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
