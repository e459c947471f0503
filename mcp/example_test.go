package mcp_test

import (
	"context"
	"fmt"

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
