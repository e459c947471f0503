package bench

import (
	"context"
	"fmt"
	"path/filepath"
	"runtime"
	"slices"
	"testing"
	"time"

	"github.com/loomwork/loom/vector"
	"github.com/loomwork/loom/vector/sqlite"
)

// heapInUse returns the live heap after a collection.
func heapInUse() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// BenchmarkQuery times top-10 queries against each store, reporting
// queries per second, p50 and p99 latency, and the heap the store holds.
func BenchmarkQuery(b *testing.B) {
	ctx := context.Background()
	for _, n := range sizes() {
		d := getData(n)
		for _, c := range contenders() {
			b.Run(fmt.Sprintf("n=%d/%s", n, c.name), func(b *testing.B) {
				before := heapInUse()
				s := c.open(b)
				defer s.close()
				if err := s.ingest(ctx, d.docs); err != nil {
					b.Fatal(err)
				}
				heap := heapInUse() - before
				lat := make([]time.Duration, 0, b.N)
				i := 0
				b.ResetTimer()
				for b.Loop() {
					t0 := time.Now()
					got, err := s.query(ctx, d.queries[i%len(d.queries)])
					lat = append(lat, time.Since(t0))
					if err != nil || got != k {
						b.Fatalf("query: %d matches, %v", got, err)
					}
					i++
				}
				b.StopTimer()
				slices.Sort(lat)
				var sum time.Duration
				for _, l := range lat {
					sum += l
				}
				b.ReportMetric(float64(len(lat))/sum.Seconds(), "qps")
				b.ReportMetric(float64(lat[len(lat)/2].Microseconds()), "p50-µs")
				b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds()), "p99-µs")
				b.ReportMetric(float64(heap)/(1<<20), "heap-MB")
			})
		}
	}
}

// BenchmarkIngest times adding n vectors to an empty store (in batches of
// 1000 for loom's stores, one AddDocuments call for chromem-go).
func BenchmarkIngest(b *testing.B) {
	ctx := context.Background()
	for _, n := range sizes() {
		d := getData(n)
		for _, c := range contenders() {
			b.Run(fmt.Sprintf("n=%d/%s", n, c.name), func(b *testing.B) {
				for b.Loop() {
					s := c.open(b)
					if err := s.ingest(ctx, d.docs); err != nil {
						b.Fatal(err)
					}
					b.StopTimer()
					s.close()
					b.StartTimer()
				}
				b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "vectors/s")
			})
		}
	}
}

// BenchmarkSQLiteOpen times opening a SQLite store of n vectors: reading
// them back into memory after a restart.
func BenchmarkSQLiteOpen(b *testing.B) {
	ctx := context.Background()
	for _, n := range sizes() {
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			path := filepath.Join(b.TempDir(), "v.db")
			opts := sqlite.Config{Path: path, MemoryConfig: vector.MemoryConfig{Dimensions: dims}}
			s, err := sqlite.Open(ctx, opts)
			if err != nil {
				b.Fatal(err)
			}
			if err := (loomStore{s}).ingest(ctx, getData(n).docs); err != nil {
				b.Fatal(err)
			}
			_ = s.Close()
			for b.Loop() {
				s, err := sqlite.Open(ctx, opts)
				if err != nil {
					b.Fatal(err)
				}
				if s.Len() != n {
					b.Fatalf("loaded %d of %d", s.Len(), n)
				}
				b.StopTimer()
				_ = s.Close()
				b.StartTimer()
			}
		})
	}
}

// BenchmarkRecallInt8 measures the recall@10 of the int8 mode against
// exact float32 search over every query of the dataset; the time per op is
// one pair of queries.
func BenchmarkRecallInt8(b *testing.B) {
	ctx := context.Background()
	for _, n := range sizes() {
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			d := getData(n)
			exact, q8 := openLoom(b, false).(loomStore), openLoom(b, true).(loomStore)
			defer exact.close()
			defer q8.close()
			for _, s := range []loomStore{exact, q8} {
				if err := s.ingest(ctx, d.docs); err != nil {
					b.Fatal(err)
				}
			}
			found, total := 0, 0
			i := 0
			for b.Loop() {
				q := d.queries[i%len(d.queries)]
				i++
				want, err := exact.s.Search(ctx, vector.Query{Vector: q, K: k})
				if err != nil {
					b.Fatal(err)
				}
				got, err := q8.s.Search(ctx, vector.Query{Vector: q, K: k})
				if err != nil {
					b.Fatal(err)
				}
				ids := map[string]bool{}
				for _, m := range want {
					ids[m.ID] = true
				}
				for _, m := range got {
					if ids[m.ID] {
						found++
					}
				}
				total += len(want)
			}
			b.ReportMetric(float64(found)/float64(total), "recall@10")
		})
	}
}
