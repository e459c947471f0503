package cli

import (
	"encoding/json"
	"flag"
	"io"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/loomwork/loom/agent"
	conformance "github.com/loomwork/loom/internal/mcpconformance"
)

// A --mcp command server is given the variables --mcp-env names and none
// of the rest of the environment (a provider key), which a model could
// otherwise read through the server's tools; checked with
// server-everything's get-env tool.
func TestMCPEnvGivesOnlyTheNamedVariables(t *testing.T) {
	script := filepath.Join(conformance.NodeModules(t), "@modelcontextprotocol", "server-everything", "dist", "index.js")
	vars := map[string]string{"PATH": "/usr/local/bin:/usr/bin:/bin", "OPENAI_API_KEY": "sk-loom-test-secret", "LOOM_TEST_GIVEN": "given-value"}
	t.Setenv("OPENAI_API_KEY", vars["OPENAI_API_KEY"])
	var m MCPServers
	fs := flag.NewFlagSet("t", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	m.Register(fs)
	require.NoError(t, fs.Parse([]string{"--mcp", "node " + script + " stdio", "--mcp-env", "LOOM_TEST_GIVEN"}))

	env := &Env{Log: NewLogger(io.Discard, 0), Stdio: Stdio{Getenv: func(k string) string { return vars[k] }}}
	defer env.cleanup()
	sets, err := m.Toolsets(t.Context(), env)
	require.NoError(t, err)
	require.Len(t, sets, 1)
	tools, err := sets[0].Tools(t.Context())
	require.NoError(t, err)
	var getEnv agent.Agent
	for _, tl := range tools {
		if tl.Info().Name == "get-env" {
			getEnv = tl
		}
	}
	require.NotNil(t, getEnv, "server-everything offers get-env")
	out, err := agent.Invoke(t.Context(), getEnv, json.RawMessage(`{}`))
	require.NoError(t, err)
	var res struct{ Message string }
	require.NoError(t, json.Unmarshal(out, &res))
	var got map[string]string
	require.NoError(t, json.Unmarshal([]byte(res.Message), &got), res.Message)
	require.Equal(t, "given-value", got["LOOM_TEST_GIVEN"])
	require.NotContains(t, res.Message, vars["OPENAI_API_KEY"])
}

func TestMCPEnvRefusals(t *testing.T) {
	var m MCPServers
	fs := flag.NewFlagSet("t", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	m.Register(fs)
	require.ErrorContains(t, fs.Parse([]string{"--mcp-env", "GITHUB_TOKEN=ghp_x"}), "give the name of an environment variable")

	m = MCPServers{Servers: []string{"loom-test-no-such-server"}, Env: []string{"LOOM_TEST_UNSET"}}
	env := &Env{Log: NewLogger(io.Discard, 0), Stdio: Stdio{Getenv: func(string) string { return "" }}}
	_, err := m.Toolsets(t.Context(), env)
	require.ErrorContains(t, err, "--mcp-env LOOM_TEST_UNSET: it is not set: export it, or put it in .env.local")
}
