// Command mcp-client is an AI agent whose tools come from an MCP server:
// by default @modelcontextprotocol/server-everything, started with npx and
// spoken to over stdio. Name other servers with --mcp (a command or an
// http(s):// URL; repeatable).
//
//	OPENAI_API_KEY=... go run ./examples/mcp-client "What is 2 + 40? Use get-sum."
package main

import (
	"context"
	"flag"
	"os"

	"github.com/loomwork/loom/agent"
	"github.com/loomwork/loom/internal/cli"
	_ "github.com/loomwork/loom/model/providers"
)

// defaultServer is started when no --mcp is given.
const defaultServer = "npx -y @modelcontextprotocol/server-everything"

func newApp() *cli.App {
	var servers cli.MCPServers
	return &cli.App{
		Name:            "mcp-client",
		Summary:         "answers with the tools of MCP servers (default: server-everything over stdio)",
		Welcome:         "Ask anything the MCP server's tools can help with.",
		DefaultQuestion: "What is 2 + 40? Use the get-sum tool.",
		Answer:          []string{"assistant"},
		Flags:           func(fs *flag.FlagSet) { servers.Register(fs) },
		Build: func(ctx context.Context, env *cli.Env) (agent.Agent, error) {
			if len(servers.Servers) == 0 {
				servers.Servers = []string{defaultServer}
			}
			toolsets, err := servers.Toolsets(ctx, env)
			if err != nil {
				return nil, err
			}
			return agent.NewAI(agent.AIConfig{
				Name:         "assistant",
				Instructions: "Answer with the help of your tools. Call a tool whenever one fits the question.",
				Model:        env.Model,
				Options:      env.Flags.Options,
				Toolsets:     toolsets,
			})
		},
	}
}

func main() { os.Exit(cli.Run(newApp())) }
