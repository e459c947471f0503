package agent_test

import (
	"context"
	"encoding/json"
	"iter"
	"sync/atomic"
	"testing"

	"github.com/loomwork/loom/agent"
	"github.com/loomwork/loom/internal/cputime"
	"github.com/loomwork/loom/internal/testkit"
	"github.com/loomwork/loom/model"
)

// cycleModel answers call i with turns[i % len(turns)] and records nothing,
// so benchmarks measure the agent rather than a growing script.
type cycleModel struct {
	turns [][]model.Chunk
	n     atomic.Int64
}

func newCycle(turns ...[]model.Chunk) *cycleModel { return &cycleModel{turns: turns} }

func (c *cycleModel) Provider() string { return "bench" }
func (c *cycleModel) Name() string     { return "cycle" }
func (c *cycleModel) Stream(_ context.Context, _ model.Request) iter.Seq2[model.Chunk, error] {
	turn := c.turns[int(c.n.Add(1)-1)%len(c.turns)]
	return func(yield func(model.Chunk, error) bool) {
		for _, ch := range turn {
			if !yield(ch, nil) {
				return
			}
		}
	}
}

var (
	textTurn = []model.Chunk{{TextDelta: "3"}, {Usage: &model.Usage{InputTokens: 20, OutputTokens: 1}, FinishReason: model.FinishStop}}
	callTurn = []model.Chunk{{ToolCall: &model.ToolCallDelta{ID: "c1", Name: "add", ArgumentsDelta: `{"a":1,"b":2}`}}, {Usage: &model.Usage{InputTokens: 10, OutputTokens: 5}, FinishReason: model.FinishToolCalls}}
)

// BenchmarkAITurn is one AI-agent turn, no tools.
//
//	go test ./agent -run '^$' -bench . -benchmem
func BenchmarkAITurn(b *testing.B) {
	a := testkit.NewAI(b, agent.AIConfig{Name: "bench", Model: newCycle(textTurn)})
	in := json.RawMessage(`{"message":"hi"}`)
	for b.Loop() {
		if _, err := agent.Collect(a.Run(b.Context(), in)); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkToolRoundTrip is a tool call, the tool, and the final answer.
func BenchmarkToolRoundTrip(b *testing.B) {
	a := testkit.NewAI(b, agent.AIConfig{Name: "bench", Model: newCycle(callTurn, textTurn), Tools: []agent.Agent{addTool(b)}})
	in := json.RawMessage(`{"message":"1+2"}`)
	for b.Loop() {
		if _, err := agent.Collect(a.Run(b.Context(), in)); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkModelOnly is the benchmark model alone for the two calls of a
// round trip, to subtract from BenchmarkToolRoundTrip.
func BenchmarkModelOnly(b *testing.B) {
	m := newCycle(callTurn, textTurn)
	req := model.Request{Messages: []model.Message{model.UserMessage("1+2")}}
	for b.Loop() {
		for range 2 {
			if _, err := model.Generate(b.Context(), m, req); err != nil {
				b.Fatal(err)
			}
		}
	}
}

// BenchmarkToolFanOut is one turn of eight cheap tool calls, run
// concurrently (the default) and one at a time, and the answer: the cost of
// the fan-out over sequential work.
func BenchmarkToolFanOut(b *testing.B) {
	calls := make([]model.Chunk, 0, 9)
	for i := range 8 {
		calls = append(calls, model.Chunk{ToolCall: &model.ToolCallDelta{Index: i, ID: "c" + string(rune('0'+i)), Name: "add", ArgumentsDelta: `{"a":1,"b":2}`}})
	}
	calls = append(calls, model.Chunk{Usage: &model.Usage{InputTokens: 10, OutputTokens: 5}, FinishReason: model.FinishToolCalls})
	for _, tc := range []struct {
		name     string
		parallel int
	}{{"parallel", 0}, {"sequential", 1}} {
		b.Run(tc.name, func(b *testing.B) {
			a := testkit.NewAI(b, agent.AIConfig{Name: "bench", Model: newCycle(calls, textTurn), Tools: []agent.Agent{addTool(b)}, MaxParallelTools: tc.parallel})
			in := json.RawMessage(`{"message":"1+2 eight times"}`)
			b.ReportAllocs()
			cpu0 := cputime.Process()
			for b.Loop() {
				if _, err := agent.Collect(a.Run(b.Context(), in)); err != nil {
					b.Fatal(err)
				}
			}
			// The process's CPU time per op, the tools' goroutines
			// included: steadier than ns/op on a busy machine, and what a
			// fan-out costs the other work of the process.
			b.ReportMetric(float64(cputime.Process()-cpu0)/float64(b.N), "cpu-ns/op")
		})
	}
}
