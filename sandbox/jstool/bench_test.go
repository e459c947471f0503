package jstool

import (
	"context"
	"testing"

	"github.com/loomwork/loom/agent"
	"github.com/loomwork/loom/sandbox"
)

// BenchmarkToolFact is one evaluateJs call through the agent layer.
func BenchmarkToolFact(b *testing.B) {
	e, err := sandbox.NewInProcess(sandbox.InProcessConfig{})
	if err != nil {
		b.Fatal(err)
	}
	defer e.Close()
	tool, err := New(e, Config{})
	if err != nil {
		b.Fatal(err)
	}
	benchRuns(b, tool, `{"code":"function f(n){return n<=1?1:n*f(n-1)} f(15)"}`)
}

// BenchmarkCodeModeCalls is one code-mode snippet that calls a host tool
// twice in turn and four times at once, each call a nested run.
func BenchmarkCodeModeCalls(b *testing.B) {
	e, err := sandbox.NewInProcess(sandbox.InProcessConfig{})
	if err != nil {
		b.Fatal(err)
	}
	defer e.Close()
	sum, err := agent.NewFunc("get-sum", "Adds two numbers.", func(_ context.Context, in struct{ A, B int }) (int, error) {
		return in.A + in.B, nil
	})
	if err != nil {
		b.Fatal(err)
	}
	tool, err := New(e, Config{Toolsets: []agent.Toolset{agent.ToolsetFunc(func(context.Context) ([]agent.Agent, error) { return []agent.Agent{sum}, nil })}})
	if err != nil {
		b.Fatal(err)
	}
	benchRuns(b, tool, `{"code":"const a = await tools.get_sum({A: 1, B: 2}); const b = await tools.get_sum({A: a, B: 3}); (await Promise.all([1, 2, 3, 4].map(x => tools.get_sum({A: x, B: b})))).reduce((s, x) => s + x, 0)"}`)
}

// benchRuns runs tool on the JSON input in, once per b.Loop.
func benchRuns(b *testing.B, tool agent.Agent, in string) {
	ctx, input := context.Background(), []byte(in)
	for b.Loop() {
		for _, err := range tool.Run(ctx, input) {
			if err != nil {
				b.Fatal(err)
			}
		}
	}
}
