package sandbox

import (
	"context"
	"encoding/json"
	"testing"
)

// benchCalls is a snippet of 32 sequential tool calls, each awaited.
const benchCalls = `let s = 0; for (let i = 0; i < 32; i++) { s += (await tools.add({a: i, b: 1})).sum } s`

// benchToolCalls reports the cost of one tool call round trip: the code
// calls, the host runs a trivial Go function, the code resumes with its
// decoded result.
func benchToolCalls(b *testing.B, e ToolRunner) {
	b.Helper()
	box, err := NewToolbox([]HostTool{{Name: "add",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"a":{"type":"number"},"b":{"type":"number"}},"required":["a","b"]}`),
		Call: func(_ context.Context, args json.RawMessage) (json.RawMessage, error) {
			var in struct{ A, B float64 }
			if err := json.Unmarshal(args, &in); err != nil {
				return nil, err
			}
			return json.Marshal(map[string]float64{"sum": in.A + in.B})
		}}}, CallLimits{})
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	for b.Loop() {
		if _, err := e.RunWithTools(ctx, benchCalls, box); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*32), "ns/call")
}

// BenchmarkInProcessToolCalls: 32 calls per run, in process.
func BenchmarkInProcessToolCalls(b *testing.B) {
	e, err := NewInProcess(InProcessConfig{})
	if err != nil {
		b.Fatal(err)
	}
	defer e.Close()
	benchToolCalls(b, e)
}

// BenchmarkIsolatedToolCalls: 32 calls per run on a warm worker, each a
// message over its pipe and the answer back.
func BenchmarkIsolatedToolCalls(b *testing.B) {
	e, err := NewIsolated(IsolatedConfig{Concurrency: 1})
	if err != nil {
		b.Fatal(err)
	}
	defer e.Close()
	benchToolCalls(b, e)
}
