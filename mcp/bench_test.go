package mcp

import (
	"context"
	"encoding/json"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/loomwork/loom/agent"
	"github.com/loomwork/loom/internal/cputime"
)

// sumServer is a go-sdk server with one tool, get_sum, served in memory.
func sumServer(b *testing.B) func() sdk.Transport {
	type in struct {
		A int `json:"a"`
		B int `json:"b"`
	}
	type out struct {
		Sum int `json:"sum"`
	}
	srv := sdk.NewServer(&sdk.Implementation{Name: "bench", Version: "1"}, nil)
	sdk.AddTool(srv, &sdk.Tool{Name: "get_sum", Description: "adds"}, func(_ context.Context, _ *sdk.CallToolRequest, v in) (*sdk.CallToolResult, out, error) {
		return nil, out{v.A + v.B}, nil
	})
	ctx, cancel := context.WithCancel(context.Background())
	b.Cleanup(cancel)
	return func() sdk.Transport {
		ct, st := sdk.NewInMemoryTransports()
		go func() { _ = srv.Run(ctx, st) }()
		return ct
	}
}

// BenchmarkCallRawSDK is one tools/call through the go-sdk client alone.
func BenchmarkCallRawSDK(b *testing.B) {
	benchRawCall(b, nil)
}

// BenchmarkCallRawSDKProgress is the raw call asking for progress, as
// loom's client does for every call: the protocol work of the _meta
// progress token (encoding it, and the server's decoding of it), without
// loom.
func BenchmarkCallRawSDKProgress(b *testing.B) {
	benchRawCall(b, sdk.Meta{"progressToken": "1"})
}

// benchRawCall is one tools/call of get_sum with meta through the go-sdk
// client alone.
func benchRawCall(b *testing.B, meta sdk.Meta) {
	newT := sumServer(b)
	ctx := context.Background()
	// The protocol version loom's client asks for: the SDK's default, a
	// draft, does more work per call.
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "bench", Version: "1"}, nil).Connect(ctx, newT(), &sdk.ClientSessionOptions{ProtocolVersion: ProtocolVersion})
	if err != nil {
		b.Fatal(err)
	}
	defer cs.Close()
	params := &sdk.CallToolParams{Name: "get_sum", Arguments: json.RawMessage(`{"a":2,"b":40}`), Meta: meta}
	b.ReportAllocs()
	defer reportCPU(b)()
	for b.Loop() {
		if _, err := cs.CallTool(ctx, params); err != nil {
			b.Fatal(err)
		}
	}
}

// reportCPU starts counting the process's CPU time (client and in-memory
// server alike), which a loaded machine disturbs less than wall time; the
// function it returns reports it per call as cpu-ns/op.
func reportCPU(b *testing.B) func() {
	cpu0 := cputime.Process()
	return func() { b.ReportMetric(float64(cputime.Process()-cpu0)/float64(b.N), "cpu-ns/op") }
}

// BenchmarkCallThroughLoom is the same call as a loom agent run: the
// toolset's session, the run's events, progress routing and result mapping.
func BenchmarkCallThroughLoom(b *testing.B) {
	ctx := context.Background()
	ts, err := Connect(ctx, Config{Transport: sumServer(b)})
	if err != nil {
		b.Fatal(err)
	}
	defer ts.Close()
	tools, err := ts.Tools(ctx)
	if err != nil {
		b.Fatal(err)
	}
	input := json.RawMessage(`{"a":2,"b":40}`)
	b.ReportAllocs()
	defer reportCPU(b)()
	for b.Loop() {
		if _, err := agent.Invoke(ctx, tools[0], input); err != nil {
			b.Fatal(err)
		}
	}
}
