// Package bench compares loom's embedded vector stores with
// github.com/philippgille/chromem-go on the same generated data in the same
// run: ingest and query at 10k (and, with -large, 100k) vectors of 1536
// dimensions, queries per second, p50 and p99 latency, heap per store, the
// SQLite store's load time, and the recall@10 of the int8 mode.
//
// It is its own module so that chromem-go stays out of loom's go.mod:
//
//	cd vector/bench && go test -run '^$' -bench . -benchmem -benchtime 200x
//	cd vector/bench && go test -run '^$' -bench . -benchmem -benchtime 200x -large
//
// The data are generated: unit vectors around 256 random cluster centres,
// queries drawn the same way, so that neighbours are close as in real
// embeddings; nothing is downloaded or committed.
//
// BenchmarkServerInsert and BenchmarkServerQuery put the server adapters
// (vector/weaviate, vector/chroma, vector/pgvector) beside their
// databases' native paths on real servers (Weaviate's REST and GraphQL API,
// Chroma's v2 REST API, pgx): 2,000 documents of 384 dimensions inserted in
// batches of 100, and top-10 queries with and without the matches'
// vectors. They run against the servers .ci/vector.sh starts, named by
// LOOM_TEST_WEAVIATE_URL (and LOOM_TEST_WEAVIATE_GRPC), LOOM_TEST_CHROMA_URL
// and LOOM_TEST_PGVECTOR_DSN; TestServerContenders checks that every side
// finds the same matches:
//
//	cd vector/bench && go test -run '^$' -bench ServerQuery -benchtime 200x
//	cd vector/bench && go test -run '^$' -bench ServerInsert -benchtime 2x
//
// With LOOM_BENCH_WEAVIATE_PID, LOOM_BENCH_CHROMA_PID or
// LOOM_BENCH_PGVECTOR_PID naming the server's process, they also report the
// CPU time the server spent per op.
package bench
