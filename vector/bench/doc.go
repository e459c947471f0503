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
package bench
