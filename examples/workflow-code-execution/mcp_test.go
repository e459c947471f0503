package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/loomwork/loom/examples/internal/exampletest"
	"github.com/loomwork/loom/examples/internal/fakeopenai"
	"github.com/stretchr/testify/require"
)

func TestMCPServerToolsOfferedToTheCoder(t *testing.T) {
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
	srv := fakeopenai.New(t, coder)
	res := exampletest.Run(t, bin, exampletest.OpenAIEnv(srv.BaseURL()), "", "--mcp", "node "+script+" stdio", "-i", "Calculate 15!")
	require.Equal(t, 0, res.Code, "stderr: %s", res.Stderr)
	reqs := srv.Requests()
	require.NotEmpty(t, reqs)
	require.Contains(t, reqs[0].Tools, "evaluateJs")
	require.Contains(t, reqs[0].Tools, "get-sum")
	require.Contains(t, reqs[0].Tools, "echo")
}

func TestMCPFlagErrors(t *testing.T) {
	srv := fakeopenai.New(t, coder)
	res := exampletest.Run(t, bin, exampletest.OpenAIEnv(srv.BaseURL()), "", "--mcp", filepath.Join(t.TempDir(), "missing-server"), "-i", "x")
	require.Equal(t, 2, res.Code, "stderr: %s", res.Stderr)
	require.Contains(t, res.Stderr, "--mcp")
	require.Contains(t, res.Stderr, "connection to the server failed")
}
