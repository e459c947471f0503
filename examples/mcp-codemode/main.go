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
	"time"

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
	kind, trusted := cli.SandboxIsolated, false
	var timeout time.Duration
	maxCalls := sandbox.DefaultMaxCalls
	return &cli.App{
		Name:            "mcp-codemode",
		Summary:         "answers by writing JavaScript that calls MCP tools as functions (code mode)",
		Welcome:         "Ask anything the MCP server's tools can help with; the coder calls them from its code.",
		DefaultQuestion: "Add 2 and 40 with get-sum, then echo the sentence it returns.",
		Answer:          []string{"coder"},
		Flags: func(fs *flag.FlagSet) {
			servers.Register(fs)
			fs.StringVar(&kind, "sandbox", kind, "the `KIND` of sandbox code runs in: isolated or inprocess (with --"+cli.TrustFlag+")")
			fs.BoolVar(&trusted, cli.TrustFlag, false, "accept that --sandbox inprocess runs the model's code with this program's privileges")
			fs.DurationVar(&timeout, "sandbox-timeout", 0, "time limit of one snippet, its tool calls included (default: the sandbox's, 5s)")
			fs.IntVar(&maxCalls, "max-calls", maxCalls, "how many tool calls (`N`) one snippet may make")
		},
		Build: func(ctx context.Context, env *cli.Env) (agent.Agent, error) {
			if err := cli.CheckTrust(kind, trusted); err != nil {
				return nil, err
			}
			exec, err := cli.NewExecutor(env, kind, timeout)
			if err != nil {
				return nil, err
			}
			if len(servers) == 0 {
				servers = cli.MCPServers{defaultServer}
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
