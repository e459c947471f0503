package cli

import (
	"context"
	"flag"
	"fmt"
	"strings"

	"github.com/loomwork/loom/agent"
	"github.com/loomwork/loom/mcp"
)

// MCPServers are the MCP servers named with the repeatable --mcp flag: a
// command started over stdio, or a streamable HTTP URL. A coder offers
// their toolsets both as direct tools (codeexec.Config.Toolsets) and as
// functions its snippets call (codeexec.Config.SandboxTools).
type MCPServers []string

// Register adds --mcp to fs.
func (m *MCPServers) Register(fs *flag.FlagSet) {
	fs.Func("mcp", "an MCP `SERVER` whose tools the agent may call (a coder also from its snippets, as tools.*): a command (run over stdio) or an http(s):// URL; repeatable", func(s string) error {
		if strings.TrimSpace(s) == "" {
			return fmt.Errorf("--mcp is empty: give a command, as \"npx -y @modelcontextprotocol/server-everything\", or a URL")
		}
		*m = append(*m, s)
		return nil
	})
}

// Toolsets connects to each server and returns its tools as a toolset;
// the connections close when the program ends. With several servers, each
// server's tool names get the prefix mcpN_ so they cannot clash.
func (m MCPServers) Toolsets(ctx context.Context, env *Env) ([]agent.Toolset, error) {
	var sets []agent.Toolset
	for i, s := range m {
		var cfg mcp.Config
		if strings.HasPrefix(s, "http://") || strings.HasPrefix(s, "https://") {
			cfg.URL = s
		} else {
			cfg.Command = strings.Fields(s)
		}
		if len(m) > 1 {
			cfg.Prefix = fmt.Sprintf("mcp%d", i+1)
		}
		ts, err := mcp.Connect(ctx, cfg)
		if err != nil {
			return nil, fmt.Errorf("--mcp %q: %w", s, err)
		}
		env.Defer(func() { _ = ts.Close() })
		sets = append(sets, ts)
	}
	return sets, nil
}
