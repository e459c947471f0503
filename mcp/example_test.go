package mcp_test

import (
	"context"
	"fmt"
	"os"

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
