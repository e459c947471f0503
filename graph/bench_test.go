package graph_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"testing"

	"github.com/loomwork/loom/agent"
	"github.com/loomwork/loom/checkpoint"
	"github.com/loomwork/loom/compose"
	"github.com/loomwork/loom/engine"
	"github.com/loomwork/loom/graph"
)

type benchState struct {
	N int `json:"n"`
}

func noop(_ context.Context, s benchState) (benchState, error) { return s, nil }

// chainGraph is 10 no-op nodes in a line.
func chainGraph(b *testing.B) *graph.Compiled[benchState] {
	g := graph.New[benchState](graph.Config{})
	prev := graph.START
	for i := range 10 {
		name := "n" + strconv.Itoa(i)
		g.Node(name, noop).Edge(prev, name)
		prev = name
	}
	g.Edge(prev, graph.END)
	c, err := g.Compile()
	if err != nil {
		b.Fatal(err)
	}
	return c
}

// fanGraph fans out to 3 no-op nodes and joins them.
func fanGraph(b *testing.B) *graph.Compiled[benchState] {
	g := graph.New[benchState](graph.Config{}).Node("split", noop).Node("join", noop).
		Edge(graph.START, "split").Edge("join", graph.END)
	for i := range 3 {
		name := "w" + strconv.Itoa(i)
		g.Node(name, noop).Edge("split", name)
	}
	g.Join("join", "w0", "w1", "w2")
	c, err := g.Compile()
	if err != nil {
		b.Fatal(err)
	}
	return c
}

func BenchmarkGraph(b *testing.B) {
	ctx := context.Background()
	b.Run("baseline=sequence10", func(b *testing.B) {
		var steps []agent.Agent
		for i := range 10 {
			f, err := agent.NewFunc("n"+strconv.Itoa(i), "", noop)
			if err != nil {
				b.Fatal(err)
			}
			steps = append(steps, f)
		}
		seq, err := compose.NewSequence(compose.SequenceConfig{Name: "sequence", Steps: steps})
		if err != nil {
			b.Fatal(err)
		}
		b.ReportAllocs()
		for b.Loop() {
			if _, err := agent.Invoke(ctx, seq, json.RawMessage(`{"n":1}`)); err != nil {
				b.Fatal(err)
			}
		}
	})
	stores := map[string]func(b *testing.B) checkpoint.Store{
		"memory": func(*testing.B) checkpoint.Store { return checkpoint.NewMemory() },
		"sqlite": func(b *testing.B) checkpoint.Store { return openSQLite(b) },
	}
	names := []string{"memory", "sqlite"}
	if dsn := postgresDSN(b); dsn != "" {
		stores["postgres"] = func(b *testing.B) checkpoint.Store { return openPostgres(b, dsn) }
		names = append(names, "postgres")
	}
	for _, store := range names {
		for _, shape := range []string{"chain10", "fanout3"} {
			b.Run(fmt.Sprintf("store=%s/graph=%s", store, shape), func(b *testing.B) {
				e := engine.New(engine.Config{Checkpoints: stores[store](b)})
				c := chainGraph(b)
				if shape == "fanout3" {
					c = fanGraph(b)
				}
				b.ReportAllocs()
				for b.Loop() {
					if _, err := e.Invoke(ctx, c, benchState{N: 1}); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
