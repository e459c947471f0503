package engine_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/loomwork/loom/agent/agentrt"
	"github.com/loomwork/loom/checkpoint"
	"github.com/loomwork/loom/engine"
)

// BenchmarkResumeAfterTools measures the resume of an AI that waits for
// an approval after n tool runs: the bytes it reads from the store and
// its allocations. Setting up each run to its question is not timed.
func BenchmarkResumeAfterTools(b *testing.B) {
	for _, n := range []int{10, 100} {
		b.Run(fmt.Sprintf("tools=%d", n), func(b *testing.B) {
			ctx := context.Background()
			rc := &readCounter{Store: checkpoint.NewMemory()}
			e := engine.New(engine.Config{Checkpoints: rc})
			var read int64
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				b.StopTimer()
				w := newToolsThenAsk(b, n, false)
				id := fmt.Sprintf("bench%x", rand.Uint64())
				_, err := e.Invoke(agentrt.WithIDs(ctx, func() string { return id }), w.ai, "ship the order")
				ie := agentrt.Interrupts(err)
				if ie == nil {
					b.Fatalf("the run did not wait: %v", err)
				}
				rc.reset()
				b.StartTimer()
				if _, err := e.ResumeInvoke(ctx, w.ai, id, map[string]json.RawMessage{ie.Questions[0].ID: json.RawMessage(`true`)}); err != nil {
					b.Fatal(err)
				}
				read += rc.bytes.Load()
			}
			b.ReportMetric(float64(read)/float64(b.N), "read-B/op")
		})
	}
}

// BenchmarkAsks measures the bytes a run that asks M times writes in
// total, and per ask.
func BenchmarkAsks(b *testing.B) {
	for _, m := range []int{16, 64} {
		b.Run(fmt.Sprintf("asks=%d", m), func(b *testing.B) {
			var total int64
			for range b.N {
				total += asksM(b, checkpoint.NewMemory(), m)
			}
			b.ReportMetric(float64(total)/float64(b.N), "stored-B/run")
			b.ReportMetric(float64(total)/float64(b.N)/float64(m), "stored-B/ask")
		})
	}
}
