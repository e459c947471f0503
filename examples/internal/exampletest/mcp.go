package exampletest

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"
)

// Everything returns the command that starts the pinned
// @modelcontextprotocol/server-everything over stdio, from .ci/mcp. It
// skips the test when the server or node is missing, and fails it instead
// under CI, where .ci/mcp.sh installs them.
func Everything(t *testing.T) string {
	t.Helper()
	_, file, _, _ := runtime.Caller(0)
	script := filepath.Join(filepath.Dir(file), "..", "..", "..", ".ci", "mcp", "node_modules", "@modelcontextprotocol", "server-everything", "dist", "index.js")
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
