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
type MCPServers struct {
	// Servers are the --mcp values.
	Servers []string
	// Env names the variables of this environment (or .env.local) that
	// every command server is given (--mcp-env); a command server gets no
	// others but those a program needs to run (mcp.ServerEnv).
	Env []string
}

// Register adds --mcp and --mcp-env to fs.
func (m *MCPServers) Register(fs *flag.FlagSet) {
	fs.Func("mcp", "an MCP `SERVER` whose tools the agent may call (a coder also from its snippets, as tools.*): a command (run over stdio) or an http(s):// URL; repeatable", func(s string) error {
		if strings.TrimSpace(s) == "" {
			return fmt.Errorf("--mcp is empty: give a command, as \"npx -y @modelcontextprotocol/server-everything\", or a URL")
		}
		m.Servers = append(m.Servers, s)
		return nil
	})
	fs.Func("mcp-env", "a variable (`NAME`) of this environment or .env.local given to every --mcp command, which gets no others but PATH, HOME and the like; repeatable", func(s string) error {
		if !isEnvName(s) {
			return fmt.Errorf("--mcp-env %q: give the name of an environment variable (letters, digits and '_'), as GITHUB_TOKEN; its value stays in the environment", s)
		}
		m.Env = append(m.Env, s)
		return nil
	})
}

// isEnvName reports whether s is an environment variable's name.
func isEnvName(s string) bool {
	for i, r := range s {
		switch {
		case r == '_', r >= 'A' && r <= 'Z', r >= 'a' && r <= 'z':
		case r >= '0' && r <= '9' && i > 0:
		default:
			return false
		}
	}
	return s != ""
}

// Toolsets connects to each server and returns its tools as a toolset;
// the connections close when the program ends. With several servers, each
// server's tool names get the prefix mcpN_ so they cannot clash.
func (m MCPServers) Toolsets(ctx context.Context, env *Env) ([]agent.Toolset, error) {
	var given []string
	for _, name := range m.Env {
		v := env.Stdio.Getenv(name)
		if v == "" {
			return nil, fmt.Errorf("--mcp-env %s: it is not set: export it, or put it in .env.local", name)
		}
		given = append(given, name+"="+v)
	}
	var sets []agent.Toolset
	for i, s := range m.Servers {
		var cfg mcp.Config
		if strings.HasPrefix(s, "http://") || strings.HasPrefix(s, "https://") {
			cfg.URL = s
		} else {
			cfg.Command = strings.Fields(s)
			cfg.Env = given
		}
		if len(m.Servers) > 1 {
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
