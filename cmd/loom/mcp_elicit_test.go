package main

import (
	"bytes"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// everythingHTTP starts @modelcontextprotocol/server-everything (as
// .ci/mcp.sh installs it) over streamable HTTP, behind a proxy that counts
// tools/call requests, and returns the proxy's MCP URL and the count.
func everythingHTTP(t *testing.T) (string, *atomic.Int32) {
	t.Helper()
	script, err := filepath.Abs(filepath.Join("..", "..", ".ci", "mcp", "node_modules", "@modelcontextprotocol", "server-everything", "dist", "index.js"))
	require.NoError(t, err)
	_, statErr := os.Stat(script)
	_, nodeErr := exec.LookPath("node")
	if statErr != nil || nodeErr != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("the MCP test servers are missing (%v, %v): .ci/mcp.sh runs npm ci in .ci/mcp", statErr, nodeErr)
		}
		t.Skip("MCP test servers not installed: run `npm ci --prefix .ci/mcp` to run this test")
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	port := l.Addr().(*net.TCPAddr).Port
	require.NoError(t, l.Close())
	cmd := exec.Command("node", script, "streamableHttp")
	cmd.Env = append(os.Environ(), fmt.Sprintf("PORT=%d", port))
	require.NoError(t, cmd.Start())
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	target, err := url.Parse(fmt.Sprintf("http://127.0.0.1:%d", port))
	require.NoError(t, err)
	require.Eventually(t, func() bool {
		resp, err := http.Get(target.String() + "/mcp")
		if err != nil {
			return false
		}
		_ = resp.Body.Close()
		return true
	}, 30*time.Second, 50*time.Millisecond, "server-everything did not start listening")

	calls := new(atomic.Int32)
	proxy := httputil.NewSingleHostReverseProxy(target)
	proxy.FlushInterval = -1
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost {
			body, _ := io.ReadAll(r.Body)
			r.Body = io.NopCloser(bytes.NewReader(body))
			if bytes.Contains(body, []byte(`"method":"tools/call"`)) {
				calls.Add(1)
			}
		}
		proxy.ServeHTTP(w, r)
	}))
	t.Cleanup(hs.Close)
	return hs.URL + "/mcp", calls
}

func TestRunAnswersMCPElicitationOnTheTerminal(t *testing.T) {
	// The model calls server-everything's elicitation tool; the person
	// answers its form on the terminal, checked against the schema; the
	// tool is called once and gets the answer.
	file, calls := elicitingProject(t)
	db := filepath.Join(t.TempDir(), "cp.db")
	// Yes to answering, a name (required, asked first), no birthdate,
	// "maybe" (refused) then yes to the terms, and the defaults for the
	// rest.
	input := "y\nAda Lovelace\n\nmaybe\ny\n" + strings.Repeat("\n", 10)
	res := call(t, true, input, "run", file, "-i", "Sign me up", "--db", db)
	require.Equal(t, 0, res.code, res.stderr)
	require.Contains(t, res.stderr, "The MCP tool trigger-elicitation-request asks: Please provide inputs for the following fields:")
	require.Contains(t, res.stderr, "Type yes or no.")
	require.Contains(t, res.stdout, "Name: Ada Lovelace")
	require.Contains(t, res.stdout, "Agreed to terms: true")
	require.Equal(t, int32(1), calls.Load(), "the tool was called once")
}

// elicitingProject writes a project whose helper calls server-everything's
// elicitation tool (behind everythingHTTP's proxy, trusted), a model that
// calls it and answers with its result, and returns the file and the
// count of tools/call requests.
func elicitingProject(t *testing.T) (string, *atomic.Int32) {
	t.Helper()
	mcpURL, calls := everythingHTTP(t)
	fakeChat(t, func(body chatBody, chunk func(delta, finish any)) {
		last := body.Messages[len(body.Messages)-1]
		if last.Role == "tool" {
			chunk(map[string]any{"role": "assistant", "content": fmt.Sprint(last.Content)}, nil)
			chunk(map[string]any{}, "stop")
			return
		}
		chunk(map[string]any{"role": "assistant", "tool_calls": []any{map[string]any{"index": 0, "id": "call_1", "type": "function",
			"function": map[string]any{"name": "trigger-elicitation-request", "arguments": "{}"}}}}, nil)
		chunk(map[string]any{}, "tool_calls")
	})
	file := writeFile(t, "loom.yaml", `version: loom/v1
model: openai:gpt-test
entry: helper
agents:
  ev: {type: mcp, url: "`+mcpURL+`", filter: [trigger-elicitation-request]}
  helper: {type: ai, tools: [ev]}
`)
	trustFile(t, file) // its MCP server's URL, trusted as loom trust does
	return file, calls
}
