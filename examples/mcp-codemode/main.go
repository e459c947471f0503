// Command mcp-codemode is the Coder→Sandbox workflow in "code mode": the
// tools of MCP servers are offered to the coder's snippets as async
// JavaScript functions, so one snippet can call several tools and combine
// their results, in place of one model turn per tool call. By default the
// server is @modelcontextprotocol/server-everything, started with npx over
// stdio; name others with --mcp (a command or an http(s):// URL;
// repeatable).
//
//	OPENAI_API_KEY=... go run ./examples/mcp-codemode "Add 2 and 40 with get-sum, then echo the sentence it returns"
package main

import (
	"context"
	"flag"
	"os"

	"github.com/loomwork/loom/agent"
	"github.com/loomwork/loom/codeexec"
	"github.com/loomwork/loom/internal/cli"
	_ "github.com/loomwork/loom/model/providers"
	"github.com/loomwork/loom/sandbox"
)

// defaultServer is started when no --mcp is given.
const defaultServer = "npx -y @modelcontextprotocol/server-everything"

func newApp() *cli.App {
	var servers cli.MCPServers
	var sb cli.SandboxFlags
	maxCalls := sandbox.DefaultMaxCalls
	return &cli.App{
		Name:            "mcp-codemode",
		Summary:         "answers by writing JavaScript that calls MCP tools as functions (code mode)",
		Welcome:         "Ask anything the MCP server's tools can help with; the coder calls them from its code.",
		DefaultQuestion: "Add 2 and 40 with get-sum, then echo the sentence it returns.",
		Answer:          []string{"coder"},
		Flags: func(fs *flag.FlagSet) {
			servers.Register(fs)
			sb.Register(fs, ", its tool calls included")
			fs.IntVar(&maxCalls, "max-calls", maxCalls, "how many tool calls (`N`) one snippet may make")
		},
		Build: func(ctx context.Context, env *cli.Env) (agent.Agent, error) {
			exec, err := sb.Executor(env)
			if err != nil {
				return nil, err
			}
			if len(servers.Servers) == 0 {
				servers.Servers = []string{defaultServer}
			}
			toolsets, err := servers.Toolsets(ctx, env)
			if err != nil {
				return nil, err
			}
			return codeexec.New(codeexec.Config{
				Sandbox:      exec,
				Options:      env.Flags.Options,
				SandboxTools: toolsets,
				SandboxCalls: sandbox.CallLimits{MaxCalls: maxCalls},
			})
		},
	}
}

func main() {
	cli.SandboxWorker()
	os.Exit(cli.Run(newApp()))
}
