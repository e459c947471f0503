package server

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"

	conformance "github.com/loomwork/loom/internal/mcpconformance"

	"github.com/loomwork/loom/agent"
	"github.com/loomwork/loom/codeexec"
	"github.com/loomwork/loom/mcp"
	"github.com/loomwork/loom/model"
	"github.com/loomwork/loom/model/modeltest"
	"github.com/loomwork/loom/sandbox"
)

// codeModel scripts a coder that runs one snippet and reports its result.
func codeModel(t modeltest.TB) *modeltest.Scripted {
	return modeltest.New(t,
		modeltest.ToolCalls(modeltest.Call("c1", "evaluateJs", `{"code":"[1, 2, 3].map(x => x * x).reduce((a, b) => a + b)"}`)),
		modeltest.Func(func(req model.Request) modeltest.Turn {
			res := req.Messages[len(req.Messages)-1].ToolResults()[0]
			return modeltest.Text("The sandbox said " + string(res.Content))
		}),
	)
}

// codeServer is a server exposing code_execution with a scripted coder.
func codeServer(t modeltest.TB, approver codeexec.Approver) (*Server, func(), error) {
	exec, err := sandbox.NewInProcess(sandbox.InProcessConfig{})
	if err != nil {
		return nil, nil, err
	}
	ce, err := codeexec.New(codeexec.Config{Model: codeModel(t), Sandbox: exec, Approver: approver})
	if err != nil {
		_ = exec.Close()
		return nil, nil, err
	}
	s, err := New(Config{Agents: []agent.Agent{ce}})
	if err != nil {
		_ = ce.Close()
		_ = exec.Close()
		return nil, nil, err
	}
	return s, func() { _ = ce.Close(); _ = exec.Close() }, nil
}

// serveInMemory connects a go-sdk client to s in memory.
func serveInMemory(t *testing.T, s *Server, opts *sdk.ClientOptions) *sdk.ClientSession {
	t.Helper()
	return serveInMemoryAt(t, s, opts, "")
}

// serveInMemoryAt connects a go-sdk client asking for protocol version
// (the SDK's latest when empty) to s in memory.
func serveInMemoryAt(t *testing.T, s *Server, opts *sdk.ClientOptions, version string) *sdk.ClientSession {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	ct, st := sdk.NewInMemoryTransports()
	done := make(chan error, 1)
	go func() { done <- s.Serve(ctx, st) }()
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "1"}, opts).Connect(ctx, ct, &sdk.ClientSessionOptions{ProtocolVersion: version})
	require.NoError(t, err)
	t.Cleanup(func() {
		_ = cs.Close()
		cancel()
		<-done
	})
	return cs
}

func TestServerInMemory(t *testing.T) {
	s, closeAll, err := codeServer(t, nil)
	require.NoError(t, err)
	defer closeAll()
	var progress atomic.Int32
	cs := serveInMemory(t, s, &sdk.ClientOptions{ProgressNotificationHandler: func(_ context.Context, r *sdk.ProgressNotificationClientRequest) {
		if r.Params.ProgressToken == "p1" && r.Params.Message != "" {
			progress.Add(1)
		}
	}})
	ctx := context.Background()

	list, err := cs.ListTools(ctx, nil)
	require.NoError(t, err)
	require.Len(t, list.Tools, 1)
	require.Equal(t, "code_execution", list.Tools[0].Name)

	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "code_execution", Arguments: map[string]any{"message": "Sum of squares?"}, Meta: sdk.Meta{"progressToken": "p1"}})
	require.NoError(t, err)
	require.False(t, res.IsError, "%v", res.Content)
	require.Contains(t, res.Content[0].(*sdk.TextContent).Text, `The sandbox said {\"result\":14`)
	require.Eventually(t, func() bool { return progress.Load() > 0 }, 10*time.Second, 10*time.Millisecond)

	bad, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "code_execution", Arguments: map[string]any{"message": 42}})
	require.NoError(t, err)
	require.True(t, bad.IsError)
	require.Contains(t, bad.Content[0].(*sdk.TextContent).Text, "invalid arguments for code_execution")
}

func TestServerApprovalByElicitation(t *testing.T) {
	pending := codeexec.ApproverFunc(func(context.Context, codeexec.ApprovalRequest) (codeexec.Approval, error) {
		return codeexec.Approval{}, codeexec.ErrPending
	})
	s, closeAll, err := codeServer(t, pending)
	require.NoError(t, err)
	defer closeAll()
	asked := make(chan string, 4)
	cs := serveInMemory(t, s, &sdk.ClientOptions{ElicitationHandler: func(_ context.Context, r *sdk.ElicitRequest) (*sdk.ElicitResult, error) {
		asked <- r.Params.Message
		return &sdk.ElicitResult{Action: "accept", Content: map[string]any{"approved": true}}, nil
	}})
	res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "code_execution", Arguments: map[string]any{"message": "Sum of squares?"}})
	require.NoError(t, err)
	require.False(t, res.IsError, "%v", res.Content[0].(*sdk.TextContent).Text)
	require.Contains(t, res.Content[0].(*sdk.TextContent).Text, `result\":14`)
	require.Len(t, asked, 1)
	msg := <-asked
	require.Contains(t, msg, "Approve running this code for: Sum of squares?")
	require.NotContains(t, msg, "{", "the message shows the question, not its JSON")
}

func TestServerConfigErrors(t *testing.T) {
	for _, tc := range []struct {
		cfg  Config
		want string
	}{
		{Config{SessionTimeout: -1}, "SessionTimeout is -1ns"},
		{Config{AllowedOrigins: []string{"app.example"}}, `AllowedOrigins has "app.example"`},
		{Config{Agents: []agent.Agent{nil}}, "Agents[0] is nil"},
	} {
		_, err := New(tc.cfg)
		require.ErrorIs(t, err, mcp.ErrInvalidConfig)
		require.ErrorContains(t, err, tc.want)
	}
}

// serverEnv makes the test binary a stdio server for the TypeScript client.
const serverEnv = "LOOM_MCP_TEST_SERVE_STDIO"

// serveStdioChild serves code_execution on stdio when the test binary was
// started as the TypeScript client's server; it reports whether it did.
func serveStdioChild() bool {
	if os.Getenv(serverEnv) != "1" {
		return false
	}
	s, closeAll, err := codeServer(nil, nil)
	if err == nil {
		err = s.ServeStdio(context.Background())
		closeAll()
	}
	if err != nil {
		_, _ = os.Stderr.WriteString(err.Error() + "\n")
		os.Exit(1)
	}
	os.Exit(0)
	return true
}

// tsClient runs .ci/mcp/client.mjs and decodes what it printed.
func tsClient(t *testing.T, args ...string) map[string]json.RawMessage {
	t.Helper()
	dir := filepath.Dir(conformance.NodeModules(t))
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "node", append([]string{filepath.Join(dir, "client.mjs")}, args...)...)
	cmd.Env = append(os.Environ(), serverEnv+"=1")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	require.NoError(t, err, "node client: %s", stderr.String())
	var got map[string]json.RawMessage
	require.NoError(t, json.Unmarshal(out, &got), string(out))
	return got
}

func TestServerTypeScriptClient(t *testing.T) {
	check := func(t *testing.T, got map[string]json.RawMessage, wantProgress bool) {
		var tools []struct {
			Name        string         `json:"name"`
			InputSchema map[string]any `json:"inputSchema"`
		}
		require.NoError(t, json.Unmarshal(got["tools"], &tools))
		require.Len(t, tools, 1)
		require.Equal(t, "code_execution", tools[0].Name)
		require.Equal(t, "object", tools[0].InputSchema["type"])

		var call, bad struct {
			IsError bool `json:"isError"`
			Content []struct {
				Text string `json:"text"`
			} `json:"content"`
		}
		require.NoError(t, json.Unmarshal(got["call"], &call))
		require.False(t, call.IsError, string(got["call"]))
		require.Contains(t, call.Content[0].Text, `result\":14`)
		var progress []map[string]any
		require.NoError(t, json.Unmarshal(got["progress"], &progress))
		if wantProgress {
			require.NotEmpty(t, progress)
		}
		require.NoError(t, json.Unmarshal(got["bad"], &bad))
		require.True(t, bad.IsError, string(got["bad"]))
		require.Contains(t, bad.Content[0].Text, "invalid arguments")
	}
	t.Run("stdio", func(t *testing.T) {
		self, err := os.Executable()
		require.NoError(t, err)
		// Over stdio the notifications and the result often arrive in one
		// read; the TypeScript SDK then handles the result first (it runs
		// notification handlers in a later microtask, after the result has
		// removed the call's progress handler) and drops the progress. The
		// notifications are sent before the result (the in-memory test and
		// the HTTP case below see them), so progress is not required here.
		check(t, tsClient(t, "stdio", self), false)
	})
	t.Run("http", func(t *testing.T) {
		s, closeAll, err := codeServer(t, nil)
		require.NoError(t, err)
		defer closeAll()
		hs := httptest.NewServer(s.Handler())
		defer hs.Close()
		check(t, tsClient(t, "http", hs.URL), true)
	})
}

func TestServerHTTPRefusesForeignHost(t *testing.T) {
	// DNS rebinding: a page on evil.example resolving to 127.0.0.1 sends
	// Host: evil.example, and the SDK's protection turns it away.
	s, closeAll, err := codeServer(t, nil)
	require.NoError(t, err)
	defer closeAll()
	hs := httptest.NewServer(s.Handler())
	defer hs.Close()
	req, err := http.NewRequest(http.MethodPost, hs.URL, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`))
	require.NoError(t, err)
	req.Host = "evil.example"
	req.Header.Set("Content-Type", "application/json")
	resp, err := hs.Client().Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	require.Equal(t, http.StatusForbidden, resp.StatusCode)
}
