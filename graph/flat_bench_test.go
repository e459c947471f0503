package graph_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"testing"

	"github.com/loomwork/loom/agent/agentrt"
	"github.com/loomwork/loom/checkpoint"
	"github.com/loomwork/loom/engine"
	"github.com/loomwork/loom/graph"
)

// chainN is n no-op nodes in a line, then a human node when ask is set.
func chainN(b *testing.B, n int, ask bool) *graph.Compiled[benchState] {
	g := graph.New[benchState](graph.Config{MaxSteps: n + 5})
	prev := graph.START
	for i := range n {
		name := "n" + strconv.Itoa(i)
		g.Node(name, noop).Edge(prev, name)
		prev = name
	}
	if ask {
		g.Ask("ask", func(benchState) (graph.Question, error) { return graph.Question{Kind: "input"}, nil },
			func(s benchState, _ json.RawMessage) (benchState, error) { return s, nil }).Edge(prev, "ask")
		prev = "ask"
	}
	g.Edge(prev, graph.END)
	c, err := g.Compile()
	if err != nil {
		b.Fatal(err)
	}
	return c
}

// benchStores are the stores to measure: memory, SQLite, and PostgreSQL
// when LOOM_TEST_POSTGRES_DSN is set.
func benchStores(b *testing.B) ([]string, map[string]func(b *testing.B) checkpoint.Store) {
	stores := map[string]func(b *testing.B) checkpoint.Store{
		"memory": func(*testing.B) checkpoint.Store { return checkpoint.NewMemory() },
		"sqlite": func(b *testing.B) checkpoint.Store { return openSQLite(b) },
	}
	names := []string{"memory", "sqlite"}
	if dsn := postgresDSN(b); dsn != "" {
		stores["postgres"] = func(b *testing.B) checkpoint.Store { return openPostgres(b, dsn) }
		names = append(names, "postgres")
	}
	return names, stores
}

// BenchmarkFlatSteps runs a chain of N no-op nodes under a durable engine;
// step-ns is the cost of one step, its checkpoints included. Flat steps
// keep it the same at 10, 50 and 200 nodes.
func BenchmarkFlatSteps(b *testing.B) {
	ctx := context.Background()
	names, stores := benchStores(b)
	for _, store := range names {
		for _, n := range []int{10, 50, 200} {
			b.Run(fmt.Sprintf("store=%s/chain=%d", store, n), func(b *testing.B) {
				e := engine.New(engine.Config{Checkpoints: stores[store](b)})
				c := chainN(b, n, false)
				for b.Loop() {
					if _, err := e.Invoke(ctx, c, benchState{N: 1}); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "step-ns")
			})
		}
	}
}

// BenchmarkResume resumes a chain of 10, 50 and 200 nodes waiting at a
// human node: the time from the engine's Resume to the run's end.
func BenchmarkResume(b *testing.B) {
	ctx := context.Background()
	names, stores := benchStores(b)
	for _, store := range names {
		for _, n := range []int{10, 50, 200} {
			b.Run(fmt.Sprintf("store=%s/chain=%d", store, n), func(b *testing.B) {
				e := engine.New(engine.Config{Checkpoints: stores[store](b)})
				c := chainN(b, n, true)
				for b.Loop() {
					b.StopTimer()
					_, err := e.Invoke(ctx, c, benchState{N: 1})
					ie := agentrt.Interrupts(err)
					if ie == nil {
						b.Fatal(err)
					}
					b.StartTimer()
					if _, err := e.ResumeInvoke(ctx, c, ie.Questions[0].Run, map[string]json.RawMessage{ie.Questions[0].ID: json.RawMessage(`1`)}); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
