package server_test

import (
	"context"
	"fmt"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/loomwork/loom/agent"
	"github.com/loomwork/loom/mcp/server"
)

// Serve a typed Go function as an MCP tool, and call it with the go-sdk
// client over an in-memory transport. Serve it to real clients with
// ServeStdio, or over HTTP with Handler.
func ExampleNew() {
	type in struct {
		A int `json:"a"`
		B int `json:"b"`
	}
	add, err := agent.NewFunc("add", "Adds a and b.", func(_ context.Context, v in) (map[string]int, error) {
		return map[string]int{"sum": v.A + v.B}, nil
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	srv, err := server.New(server.Config{Agents: []agent.Agent{add}})
	if err != nil {
		fmt.Println(err)
		return
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ct, st := sdk.NewInMemoryTransports()
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ctx, st) }()
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "example", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "add", Arguments: map[string]any{"a": 2, "b": 40}})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(res.Content[0].(*sdk.TextContent).Text)
	_ = cs.Close()
	cancel()
	<-served
	// Output: {"sum":42}
}
