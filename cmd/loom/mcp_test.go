package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"

	"github.com/loomwork/loom/internal/testkit"
	"github.com/loomwork/loom/model"
	"github.com/loomwork/loom/model/modeltest"
)

func TestMCPServeHTTP(t *testing.T) {
	m := modeltest.New(t,
		modeltest.ToolCalls(modeltest.Call("c1", "evaluateJs", `{"code":"6 * 7"}`)),
		modeltest.Text("It is 42."),
	)
	var openedID string
	open := func(id string) (model.Model, error) { openedID = id; return m, nil }
	ctx := t.Context()
	cs := serveHTTP(t, open, "--model", "scripted:x", "--sandbox", "inprocess", "--trusted-code")
	require.Equal(t, "scripted:x", openedID)
	list, err := cs.ListTools(ctx, nil)
	require.NoError(t, err)
	require.Len(t, list.Tools, 1)
	require.Equal(t, "code_execution", list.Tools[0].Name)
	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "code_execution", Arguments: map[string]any{"message": "six times seven?"}})
	require.NoError(t, err)
	require.False(t, res.IsError)
	require.Contains(t, res.Content[0].(*sdk.TextContent).Text, "It is 42.")
}

// serveHTTP runs loom mcp serve --http on a free loopback port with args,
// and returns a client connected to it. When the test ends, the client
// leaves, the server is stopped and must exit with status 0.
func serveHTTP(t *testing.T, open modelOpener, args ...string) *sdk.ClientSession {
	t.Helper()
	return serveHTTPAt(t, open, nil, "", args...)
}

// serveHTTPWith is serveHTTP of a file, with client options and a
// protocol version.
func serveHTTPWith(t *testing.T, opts *sdk.ClientOptions, version string, args ...string) *sdk.ClientSession {
	t.Helper()
	return serveHTTPAt(t, nil, opts, version, args...)
}

func serveHTTPAt(t *testing.T, open modelOpener, opts *sdk.ClientOptions, version string, args ...string) *sdk.ClientSession {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	var stderr testkit.SyncBuffer
	code := make(chan int, 1)
	go func() {
		code <- runMCP(ctx, append([]string{"serve", "--http", "127.0.0.1:0"}, args...), io.Discard, &stderr, open)
	}()
	var url string
	require.Eventually(t, func() bool {
		url = regexp.MustCompile(`http://\S+/mcp`).FindString(stderr.String())
		return url != ""
	}, 30*time.Second, 10*time.Millisecond, "no address in %q", stderr.String())
	tr := &http.Transport{}
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "1"}, opts).Connect(ctx, &sdk.StreamableClientTransport{Endpoint: url, HTTPClient: &http.Client{Transport: tr}}, &sdk.ClientSessionOptions{ProtocolVersion: version})
	require.NoError(t, err)
	t.Cleanup(func() {
		require.NoError(t, cs.Close())
		tr.CloseIdleConnections()
		cancel()
		require.Equal(t, 0, <-code, stderr.String())
	})
	return cs
}

func TestMCPServeUsageErrors(t *testing.T) {
	open := func(string) (model.Model, error) { return modeltest.New(t), nil }
	cases := []struct {
		args []string
		want string
	}{
		{[]string{}, "Usage: loom mcp serve"},
		{[]string{"serve", "--sandbox", "docker"}, `--sandbox "docker": use isolated or inprocess`},
		{[]string{"serve", "--sandbox", "inprocess"}, "it is for trusted code only; pass --trusted-code"},
		{[]string{"serve", "--http", "8080"}, `--http "8080": use HOST:PORT`},
		{[]string{"serve", "nosuch.yaml"}, `nosuch.yaml: cannot read the file`},
	}
	for _, c := range cases {
		var stderr testkit.SyncBuffer
		got := runMCP(context.Background(), c.args, io.Discard, &stderr, open)
		require.NotEqual(t, 0, got, c.args)
		require.Contains(t, stderr.String(), c.want)
	}
}

// TestMCPServeFileOverStdio starts loom mcp serve FILE as a child process
// and calls its entry agent with the Go SDK's client over stdio: the
// agent's model is a local OpenAI-format server, its key from the
// environment.
func TestMCPServeFileOverStdio(t *testing.T) {
	fakeOpenAI(t)
	file := writeFile(t, "loom.yaml", `version: loom/v1
name: helpers
model: openai:gpt-test
entry: helper
agents:
  helper: {type: ai, description: Answers questions.}
  other: {type: ai, description: Not served.}
`)
	cmd := exec.Command(os.Args[0], "mcp", "serve", file, "--db", filepath.Join(t.TempDir(), "cp.db"))
	cmd.Env = append(os.Environ(), childEnv+"=1")
	var stderr testkit.SyncBuffer
	cmd.Stderr = &stderr
	ctx := t.Context()
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "1"}, nil).Connect(ctx, &sdk.CommandTransport{Command: cmd}, nil)
	require.NoError(t, err, stderr.String())
	init := cs.InitializeResult()
	require.Equal(t, "helpers", init.ServerInfo.Name)
	list, err := cs.ListTools(ctx, nil)
	require.NoError(t, err)
	require.Len(t, list.Tools, 1, "the entry only")
	require.Equal(t, "helper", list.Tools[0].Name)
	require.Equal(t, "Answers questions.", list.Tools[0].Description)
	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "helper", Arguments: map[string]any{"message": "hi"}})
	require.NoError(t, err)
	require.False(t, res.IsError, "%+v", res.Content)
	require.Contains(t, res.Content[0].(*sdk.TextContent).Text, "user messages: 1")
	require.NoError(t, cs.Close())
	require.NotContains(t, stderr.String(), "sk-test-0123456789abcdef", "the key is never logged")
}

func TestMCPServeFileUsageErrors(t *testing.T) {
	file := writeFile(t, "loom.yaml", "version: loom/v1\nmodel: openai:gpt-test\nagents:\n  helper: {type: ai}\n")
	t.Setenv("OPENAI_API_KEY", "sk-test-0123456789abcdef")
	open := func(string) (model.Model, error) { return modeltest.New(t), nil }
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"serve", file, "--agents", "nobody", "--db", filepath.Join(t.TempDir(), "cp.db")}, `--agents nobody: the file declares no such agent`},
		{[]string{"serve", trusted(t, writeFile(t, "loom.yaml", "version: loom/v1\nmodel: openai:gpt-test\nagents:\n  fs: {type: mcp, command: server}\n  a: {type: ai, tools: [fs]}\n")), "--agents", "fs", "--db", filepath.Join(t.TempDir(), "cp.db")}, `--agents fs: it is an mcp entry, a set of tools: run an agent that names it in its tools`},
		{[]string{"serve", file, "--sandbox", "inprocess"}, "--sandbox goes without a FILE"},
		{[]string{"serve", "--agents", "helper"}, "--agents, --log-level, --timeout, --db and --root go with a FILE"},
		{[]string{"serve", "--root", t.TempDir()}, "--agents, --log-level, --timeout, --db and --root go with a FILE"},
		{[]string{"serve", file, file}, "give at most one file"},
		{[]string{"serve", writeFile(t, "loom.yaml", "version: loom/v1\nagents:\n  a: {type: ai, instrutions: x}\n")}, `unknown key "instrutions"`},
	}
	for _, c := range cases {
		var stderr testkit.SyncBuffer
		got := runMCP(context.Background(), c.args, io.Discard, &stderr, open)
		require.Equal(t, 2, got, c.args)
		require.Contains(t, stderr.String(), c.want)
	}
}

// toolCaller is a Chat Completions endpoint that calls the first tool it
// is offered with args, then answers with the tool's result. offered
// lists the tools offered, call after call.
func toolCaller(t *testing.T, args string) (offered func() []string) {
	t.Helper()
	var mu sync.Mutex
	var names []string
	fakeChat(t, func(body chatBody, chunk func(delta, finish any)) {
		last := body.Messages[len(body.Messages)-1]
		mu.Lock()
		for _, tool := range body.Tools {
			names = append(names, tool.Function.Name)
		}
		mu.Unlock()
		switch {
		case last.Role == "tool":
			chunk(map[string]any{"role": "assistant", "content": fmt.Sprint("result: ", last.Content)}, nil)
			chunk(map[string]any{}, "stop")
		case len(body.Tools) > 0:
			chunk(map[string]any{"role": "assistant", "tool_calls": []any{map[string]any{"index": 0, "id": "call_1", "type": "function",
				"function": map[string]any{"name": body.Tools[0].Function.Name, "arguments": args}}}}, nil)
			chunk(map[string]any{}, "tool_calls")
		default:
			chunk(map[string]any{"role": "assistant", "content": "no tools"}, nil)
			chunk(map[string]any{}, "stop")
		}
	})
	return func() []string {
		mu.Lock()
		defer mu.Unlock()
		return append([]string(nil), names...)
	}
}

// TestMCPEntryOverStdio runs a file whose assistant uses an mcp entry: a
// second loom, started as a command, serving another file's function over
// stdio. The tools of the server are offered to the model, filtered and
// prefixed, and the call reaches the function.
func TestMCPEntryOverStdio(t *testing.T) {
	offered := toolCaller(t, `{"a":2,"b":3}`)
	dir := t.TempDir()
	inner := filepath.Join(dir, "inner.yaml")
	require.NoError(t, os.WriteFile(inner, []byte(`version: loom/v1
entry: add
agents:
  add:
    type: function
    description: Adds a and b.
    code: "({sum: input.a + input.b})"
    input_schema: {type: object, properties: {a: {type: number}, b: {type: number}}, required: [a, b]}
`), 0o644))
	cmd, err := json.Marshal([]string{os.Args[0], "mcp", "serve", inner, "--db", filepath.Join(dir, "inner.db")})
	require.NoError(t, err)
	outer := writeFile(t, "loom.yaml", `version: loom/v1
model: openai:gpt-test
entry: assistant
agents:
  calc:
    type: mcp
    command: `+string(cmd)+`
    env: [`+childEnv+`]
    prefix: calc
    filter: [add]
  assistant: {type: ai, tools: [calc]}
`)
	trustFile(t, outer)
	// The server the entry starts runs loom's main: it is given childEnv
	// by name, as a server is given any variable of loom's environment.
	t.Setenv(childEnv, "1")
	res := call(t, false, "", "run", outer, "-i", "2 + 3?", "--db", filepath.Join(dir, "outer.db"))
	require.Equal(t, 0, res.code, res.stderr)
	require.Equal(t, "result: {\"sum\":5}\n", res.stdout)
	require.Equal(t, []string{"calc_add", "calc_add"}, offered(), "offered on both model calls: the server's one tool, prefixed")
}

// TestMCPServeFileOverHTTP serves every agent --agents names over
// streamable HTTP on a loopback port.
func TestMCPServeFileOverHTTP(t *testing.T) {
	fakeOpenAI(t)
	file := writeFile(t, "loom.yaml", `version: loom/v1
model: openai:gpt-test
agents:
  helper: {type: ai, description: Answers questions.}
  shout: {type: function, code: "input.message.toUpperCase()"}
  other: {type: ai}
`)
	ctx := t.Context()
	cs := serveHTTP(t, nil, file, "--agents", "helper,shout", "--db", filepath.Join(t.TempDir(), "cp.db"))
	list, err := cs.ListTools(ctx, nil)
	require.NoError(t, err)
	var names []string
	for _, tool := range list.Tools {
		names = append(names, tool.Name)
	}
	require.ElementsMatch(t, []string{"helper", "shout"}, names)
	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "shout", Arguments: map[string]any{"message": "hi"}})
	require.NoError(t, err)
	require.False(t, res.IsError, "%+v", res.Content)
	require.Contains(t, res.Content[0].(*sdk.TextContent).Text, "HI")
}

// TestMCPServeHTTPGuard: the MCP server over HTTP refuses what a hostile
// page can make a browser send, as the viewer and the playground do.
func TestMCPServeHTTPGuard(t *testing.T) {
	open := func(string) (model.Model, error) { return modeltest.New(t), nil }
	ctx, cancel := context.WithCancel(context.Background())
	var stderr testkit.SyncBuffer
	code := make(chan int, 1)
	go func() {
		code <- runMCP(ctx, []string{"serve", "--http", "127.0.0.1:0", "--sandbox", "inprocess", "--trusted-code"}, io.Discard, &stderr, open)
	}()
	var url string
	require.Eventually(t, func() bool {
		url = regexp.MustCompile(`http://\S+/mcp`).FindString(stderr.String())
		return url != ""
	}, 30*time.Second, 10*time.Millisecond, "no address in %q", stderr.String())
	initialize := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"x","version":"1"}}}`
	tr := &http.Transport{}
	client := &http.Client{Transport: tr}
	for _, tc := range []struct {
		name, host, origin, contentType string
		status                          int
	}{
		{"foreign host", "evil.example", "", "application/json", http.StatusForbidden},
		{"foreign origin", "", "https://evil.example", "application/json", http.StatusForbidden},
		{"form post", "", "", "application/x-www-form-urlencoded", http.StatusUnsupportedMediaType},
		{"text post", "", "https://evil.example", "text/plain", http.StatusForbidden},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, url, strings.NewReader(initialize))
			require.NoError(t, err)
			if tc.host != "" {
				req.Host = tc.host
			}
			if tc.origin != "" {
				req.Header.Set("Origin", tc.origin)
			}
			req.Header.Set("Content-Type", tc.contentType)
			req.Header.Set("Accept", "application/json, text/event-stream")
			res, err := client.Do(req)
			require.NoError(t, err)
			_, _ = io.Copy(io.Discard, res.Body)
			require.NoError(t, res.Body.Close())
			require.Equal(t, tc.status, res.StatusCode)
		})
	}
	tr.CloseIdleConnections()
	cancel()
	require.Equal(t, 0, <-code, stderr.String())
}
