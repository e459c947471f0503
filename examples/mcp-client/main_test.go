package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/loomwork/loom/examples/internal/exampletest"
	"github.com/loomwork/loom/examples/internal/fakeopenai"
	"github.com/stretchr/testify/require"
)

var bin string

func TestMain(m *testing.M) { os.Exit(exampletest.Main(m, &bin)) }

// everything returns the command that starts the pinned server-everything.
func everything(t *testing.T) string {
	script, err := filepath.Abs(filepath.Join("..", "..", ".ci", "mcp", "node_modules", "@modelcontextprotocol", "server-everything", "dist", "index.js"))
	require.NoError(t, err)
	_, statErr := os.Stat(script)
	_, nodeErr := exec.LookPath("node")
	if statErr != nil || nodeErr != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("the MCP test server is missing (%v, %v): .ci/mcp.sh runs npm ci in .ci/mcp", statErr, nodeErr)
		}
		t.Skip("MCP test server not installed: run `npm ci --prefix .ci/mcp`")
	}
	return "node " + script + " stdio"
}

// sumModel calls get-sum, then answers with the tool's message.
func sumModel(req fakeopenai.Request) fakeopenai.Reply {
	if last := req.Last(); last.Role == "tool" {
		var res struct{ Message string }
		_ = json.Unmarshal([]byte(last.Content), &res)
		return fakeopenai.Reply{Text: "The server says: " + res.Message}
	}
	return fakeopenai.Reply{ToolCalls: []fakeopenai.ToolCall{{ID: "call_1", Name: "get-sum", Arguments: `{"a":2,"b":40}`}}}
}

func TestAnswersWithTheServersTool(t *testing.T) {
	srv := fakeopenai.New(t, sumModel)
	res := exampletest.Run(t, bin, exampletest.OpenAIEnv(srv.BaseURL()), "", "--mcp", everything(t), "What is 2 + 40?")
	require.Equal(t, 0, res.Code, "stderr: %s", res.Stderr)
	require.Contains(t, res.Stdout, "The server says: The sum of 2 and 40 is 42.")
	reqs := srv.Requests()
	require.Len(t, reqs, 2)
	require.Contains(t, reqs[0].Tools, "get-sum")
	require.Contains(t, reqs[0].Tools, "get-tiny-image")
}
