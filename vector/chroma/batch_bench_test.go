package chroma_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/loomwork/loom/vector"
	"github.com/loomwork/loom/vector/chroma"
)

// BenchmarkRealServerUpsert writes and then deletes 6,000 records of 384
// dimensions on the real server, in batches of the default 100 and of the
// server's limit. With LOOM_BENCH_CHROMA_PID set to the server's process,
// it reports the server's CPU time per op (from /proc, 10 ms resolution).
func BenchmarkRealServerUpsert(b *testing.B) {
	const n, dims = 6000, 384
	rng := rand.New(rand.NewPCG(1, 2))
	ds := make([]vector.Document, n)
	all := make([]string, n)
	for i := range ds {
		v := make([]float32, dims)
		for j := range v {
			v[j] = rng.Float32() - 0.5
		}
		ds[i] = vector.Document{ID: fmt.Sprintf("d%d", i), Vector: v, Metadata: map[string]any{"i": float64(i)}}
		all[i] = ds[i].ID
	}
	for _, batch := range []int{0, 1 << 30} {
		name := "default"
		if batch != 0 {
			name = "server-limit"
		}
		b.Run(name, func(b *testing.B) {
			c := realClient(b)
			ctx := context.Background()
			col := fmt.Sprintf("loom%d-bench", time.Now().UnixNano())
			s, err := chroma.Open(ctx, chroma.Config{Client: c, Collection: col, Dimensions: dims, BatchSize: batch})
			require.NoError(b, err)
			b.Cleanup(func() { _ = c.DeleteCollection(context.Background(), col) })
			b.ReportMetric(float64(s.BatchSize()), "batch")
			cpu0 := serverCPU(b)
			b.ResetTimer()
			for b.Loop() {
				require.NoError(b, s.Upsert(ctx, ds...))
				require.NoError(b, s.Delete(ctx, all...))
			}
			if cpu0 >= 0 {
				b.ReportMetric((serverCPU(b)-cpu0).Seconds()*1000/float64(b.N), "server-ms/op")
			}
		})
	}
}

// serverCPU returns the user+system CPU time of the process named by
// LOOM_BENCH_CHROMA_PID, or -1 when it is not set.
func serverCPU(b *testing.B) time.Duration {
	pid := os.Getenv("LOOM_BENCH_CHROMA_PID")
	if pid == "" {
		return -1
	}
	raw, err := os.ReadFile("/proc/" + pid + "/stat")
	require.NoError(b, err)
	// Fields after the command (which may hold spaces) in parentheses.
	fields := strings.Fields(string(raw[strings.LastIndexByte(string(raw), ')')+2:]))
	utime, err := strconv.ParseInt(fields[11], 10, 64)
	require.NoError(b, err)
	stime, err := strconv.ParseInt(fields[12], 10, 64)
	require.NoError(b, err)
	return time.Duration(utime+stime) * 10 * time.Millisecond // USER_HZ is 100 on Linux
}
