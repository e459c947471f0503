package server

import (
	"context"
	"encoding/json"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/loomwork/loom/agent"
	"github.com/loomwork/loom/mcp"
)

// serveBench connects a go-sdk client in memory to a server made by
// serve, for the server-side benchmarks.
func serveBench(b *testing.B, serve func(ctx context.Context, t sdk.Transport) error) *sdk.ClientSession {
	ctx, cancel := context.WithCancel(context.Background())
	ct, st := sdk.NewInMemoryTransports()
	done := make(chan struct{})
	go func() { _ = serve(ctx, st); close(done) }()
	// The protocol version loom's client asks for, as in benchRawCall.
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "bench", Version: "1"}, nil).Connect(ctx, ct, &sdk.ClientSessionOptions{ProtocolVersion: mcp.ProtocolVersion})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = cs.Close(); cancel(); <-done })
	return cs
}

// BenchmarkServeRawSDK is one tools/call answered by a go-sdk server's
// typed tool, the baseline of BenchmarkServeThroughLoom.
func BenchmarkServeRawSDK(b *testing.B) {
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
	cs := serveBench(b, srv.Run)
	ctx := context.Background()
	params := &sdk.CallToolParams{Name: "get_sum", Arguments: json.RawMessage(`{"a":2,"b":40}`)}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := cs.CallTool(ctx, params); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkServeThroughLoom is the same call answered by a loom Server: a
// function agent run through the engine (checkpoints in memory), its
// input checked against its schema and its output mapped to content and
// structured content.
func BenchmarkServeThroughLoom(b *testing.B) {
	type in struct {
		A int `json:"a"`
		B int `json:"b"`
	}
	type out struct {
		Sum int `json:"sum"`
	}
	sum, err := agent.NewFunc("get_sum", "adds", func(_ context.Context, v in) (out, error) { return out{v.A + v.B}, nil })
	if err != nil {
		b.Fatal(err)
	}
	s, err := New(Config{Agents: []agent.Agent{sum}})
	if err != nil {
		b.Fatal(err)
	}
	cs := serveBench(b, s.Serve)
	ctx := context.Background()
	params := &sdk.CallToolParams{Name: "get_sum", Arguments: json.RawMessage(`{"a":2,"b":40}`)}
	b.ReportAllocs()
	for b.Loop() {
		res, err := cs.CallTool(ctx, params)
		if err != nil || res.IsError {
			b.Fatal(err, res)
		}
	}
}
