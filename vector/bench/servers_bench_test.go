package bench

import (
	"context"
	"fmt"
	"net/http"
	"testing"
	"time"
)

// serverN documents go into each database in batches of serverBatch.
const (
	serverN     = 2000
	serverBatch = 100
	warmUp      = 50 // queries before a query benchmark's clock starts
)

// TestServerContenders checks, on each real server that is set, that the
// loom adapter and the native path store the same documents and find the
// same best match for each query with and without vectors, so the
// benchmarks compare the same work.
func TestServerContenders(t *testing.T) {
	ctx := context.Background()
	d := generate(500, serverDims)
	for _, db := range []string{"weaviate", "chroma", "pgvector"} {
		t.Run(db, func(t *testing.T) {
			url := serverURL(t, db)
			var stores []serverStore
			for _, c := range serverContenders() {
				if c.db == db {
					s := c.open(t, url)
					if err := s.insert(ctx, d.docs, serverBatch); err != nil {
						t.Fatalf("%s %s: insert: %v", db, c.name, err)
					}
					stores = append(stores, s)
				}
			}
			if len(stores) < 2 {
				t.Fatalf("%d contenders for %s, want loom and native", len(stores), db)
			}
			agree := 0
			for i, q := range d.queries[:20] {
				best := map[string]bool{}
				for _, s := range stores {
					ids, err := s.query(ctx, q, i%2 == 1)
					if err != nil || len(ids) != k {
						t.Fatalf("query %d: %d ids, %v", i, len(ids), err)
					}
					best[ids[0]] = true
				}
				if len(best) == 1 {
					agree++
				}
			}
			// Every side searches an approximate (HNSW) index of its own
			// over the same data; on 500 vectors they agree on nearly
			// every best match.
			if agree < 18 {
				t.Fatalf("the %d contenders agree on the best match of %d of 20 queries", len(stores), agree)
			}
		})
	}
}

// BenchmarkServerInsert times inserting serverN documents of serverDims
// dimensions into an empty collection in batches of serverBatch, through
// each adapter and its database's native path. One op is the whole
// insert; allocs/op counts the client's allocations for it.
func BenchmarkServerInsert(b *testing.B) {
	ctx := context.Background()
	d := generate(serverN, serverDims)
	for _, c := range serverContenders() {
		b.Run(c.db+"/"+c.name, func(b *testing.B) {
			url := serverURL(b, c.db)
			b.ReportAllocs()
			var cpu time.Duration
			for b.Loop() {
				b.StopTimer()
				s := c.open(b, url)
				cpu0, _ := serverCPU(b, c.db)
				b.StartTimer()
				if err := s.insert(ctx, d.docs, serverBatch); err != nil {
					b.Fatal(err)
				}
				if cpu1, ok := serverCPU(b, c.db); ok {
					cpu += cpu1 - cpu0
				}
			}
			b.ReportMetric(float64(serverN)*float64(b.N)/b.Elapsed().Seconds(), "docs/s")
			if _, ok := serverCPU(b, c.db); ok {
				b.ReportMetric(float64(cpu.Milliseconds())/float64(b.N), "server-cpu-ms/op")
			}
		})
	}
}

// BenchmarkServerQuery times one top-10 query against serverN documents,
// with and without the matches' vectors, through each adapter and its
// database's native path.
func BenchmarkServerQuery(b *testing.B) {
	ctx := context.Background()
	d := generate(serverN, serverDims)
	for _, c := range serverContenders() {
		b.Run(c.db+"/"+c.name, func(b *testing.B) {
			url := serverURL(b, c.db)
			s := c.open(b, url)
			if err := s.insert(ctx, d.docs, serverBatch); err != nil {
				b.Fatal(err)
			}
			// The first queries after an insert pay for work the server
			// left for later (Chroma materialises its log, for one): it
			// is done before the clock starts, so each contender's figures
			// are its own.
			for _, q := range d.queries[:warmUp] {
				if _, err := s.query(ctx, q, false); err != nil {
					b.Fatal(err)
				}
			}
			for _, withVectors := range []bool{false, true} {
				b.Run(fmt.Sprintf("vectors=%t", withVectors), func(b *testing.B) {
					b.ReportAllocs()
					cpu0, _ := serverCPU(b, c.db)
					i := 0
					for b.Loop() {
						ids, err := s.query(ctx, d.queries[i%len(d.queries)], withVectors)
						if err != nil || len(ids) != k {
							b.Fatalf("query: %d ids, %v", len(ids), err)
						}
						i++
					}
					b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "queries/s")
					if cpu1, ok := serverCPU(b, c.db); ok {
						b.ReportMetric(float64((cpu1-cpu0).Microseconds())/float64(b.N), "server-cpu-µs/op")
					}
				})
			}
		})
	}
}

// BenchmarkChromaUpsertRead times the read the Chroma adapter makes before
// writing, on a collection of serverN documents: the collection with its
// schema, once per Upsert call (servers with schemas), beside the stored
// metadata of a batch's ids, once per batch (servers without).
func BenchmarkChromaUpsertRead(b *testing.B) {
	ctx := context.Background()
	url := serverURL(b, "chroma")
	n := openNativeChroma(b, url).(nativeChroma)
	d := generate(serverN, serverDims)
	if err := n.insert(ctx, d.docs, serverBatch); err != nil {
		b.Fatal(err)
	}
	ids := make([]string, serverBatch)
	for i := range ids {
		ids[i] = docID(i * (serverN / serverBatch))
	}
	for _, tc := range []struct {
		name string
		read func() error
	}{
		{"collection", func() error { return postJSON(ctx, n.c, http.MethodGet, n.byName, nil, nil) }},
		{"batch-metadata", func() error {
			return postJSON(ctx, n.c, http.MethodPost, n.col+"/get", map[string]any{"ids": ids, "include": []string{"metadatas"}}, nil)
		}},
	} {
		b.Run(tc.name, func(b *testing.B) {
			b.ReportAllocs()
			cpu0, _ := serverCPU(b, "chroma")
			for b.Loop() {
				if err := tc.read(); err != nil {
					b.Fatal(err)
				}
			}
			if cpu1, ok := serverCPU(b, "chroma"); ok {
				b.ReportMetric(float64((cpu1-cpu0).Microseconds())/float64(b.N), "server-cpu-µs/op")
			}
		})
	}
}
