package mcp_test

import (
	"context"
	"fmt"
	"os"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/loomwork/loom/agent"
	"github.com/loomwork/loom/mcp"
)

// Connect to server-everything over stdio and offer its tools, behind the
// prefix "everything", to an AI agent.
func ExampleConnect() {
	ctx := context.Background()
	tools, err := mcp.Connect(ctx, mcp.Config{
		Command: []string{"npx", "-y", "@modelcontextprotocol/server-everything"},
		Prefix:  "everything",
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer tools.Close()
	_ = agent.AIConfig{Name: "helper", Toolsets: []agent.Toolset{tools}}
}

// Reach a server through the organisation's identity provider
// (enterprise-managed authorization): loom signs the person in to the IdP
// in a browser, and trades the ID token for the server's access token.
// The secrets come from the environment.
func ExampleEnterprise() {
	ctx := context.Background()
	tools, err := mcp.Connect(ctx, mcp.Config{
		URL: "https://mcp.example.com/mcp",
		OAuth: &mcp.OAuth{
			ClientID:     "mcp-client",
			ClientSecret: os.Getenv("MCP_CLIENT_SECRET"),
			Enterprise:   &mcp.Enterprise{IdPIssuer: "https://acme.okta.com", IdPClientID: "loom"},
		},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer tools.Close()
}

// Serve a typed Go function as an MCP tool, and call it with the go-sdk
// client over an in-memory transport. Serve it to real clients with
// ServeStdio, or over HTTP with Handler.
func ExampleNewServer() {
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
	srv, err := mcp.NewServer(mcp.ServerConfig{Agents: []agent.Agent{add}})
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
