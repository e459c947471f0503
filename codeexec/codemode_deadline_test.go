package codeexec_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"sync"
	"testing"
	"time"

	"github.com/loomwork/loom/agent"
	"github.com/loomwork/loom/codeexec"
	"github.com/loomwork/loom/engine"
	"github.com/loomwork/loom/mcp"
	"github.com/loomwork/loom/model/modeltest"
	"github.com/loomwork/loom/sandbox"
	"github.com/stretchr/testify/require"
)

// wireLog is a proxy in front of an MCP server over HTTP that keeps every
// JSON-RPC message the client posted: what the server received.
type wireLog struct {
	mu   sync.Mutex
	msgs []json.RawMessage
}

func (w *wireLog) proxy(t *testing.T, target string) string {
	u, err := url.Parse(target)
	require.NoError(t, err)
	rp := httputil.NewSingleHostReverseProxy(&url.URL{Scheme: u.Scheme, Host: u.Host})
	rp.FlushInterval = -1 // server-sent events pass at once
	srv := httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost {
			b, _ := io.ReadAll(r.Body)
			r.Body = io.NopCloser(bytes.NewReader(b))
			w.mu.Lock()
			w.msgs = append(w.msgs, b)
			w.mu.Unlock()
		}
		rp.ServeHTTP(rw, r)
	}))
	t.Cleanup(srv.Close)
	return srv.URL + u.Path
}

// calls returns the ids of the tools/call requests for tool name, and the
// request ids that notifications/cancelled named.
func (w *wireLog) calls(name string) (called, cancelled []string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, b := range w.msgs {
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params struct {
				Name      string          `json:"name"`
				RequestID json.RawMessage `json:"requestId"`
			} `json:"params"`
		}
		if json.Unmarshal(b, &m) != nil {
			continue
		}
		switch {
		case m.Method == "tools/call" && m.Params.Name == name:
			called = append(called, string(m.ID))
		case m.Method == "notifications/cancelled":
			cancelled = append(cancelled, string(m.Params.RequestID))
		}
	}
	return called, cancelled
}

// TestCodeModeMCPCallCutAtTheSnippetDeadline: a snippet awaiting a long
// tool of the real server-everything is cut at its time limit (on both
// executors), or its worker killed at its memory limit. The call is
// cancelled at the server (it receives notifications/cancelled for that
// request), and the model is told which limit cut the snippet; nothing
// says the tool finished. With approval on, a declined snippet calls no tool.
func TestCodeModeMCPCallCutAtTheSnippetDeadline(t *testing.T) {
	const long = "trigger-long-running-operation"
	code := `const r = await tools.trigger_long_running_operation({duration: 600, steps: 600}); r`
	// A snippet whose worker is killed at its memory limit while the call
	// is in flight.
	hog := `tools.trigger_long_running_operation({duration: 600, steps: 600}); const a = []; while (true) a.push(new Array(1e6).fill(1));`
	iso, err := sandbox.NewIsolated(sandbox.IsolatedConfig{Limits: sandbox.Limits{Timeout: time.Minute, Memory: 64 << 20}, Concurrency: 1})
	require.NoError(t, err)
	t.Cleanup(func() { _ = iso.Close() })
	type cut struct {
		exec       sandbox.Executor
		code, told string
	}
	cuts := map[string]cut{"memory, isolated": {iso, hog, "Memory limit"}}
	for name, exec := range executors(t, sandbox.Limits{Timeout: 2 * time.Second}) {
		cuts["time, "+name] = cut{exec, code, "time limit"}
	}
	for name, c := range cuts {
		t.Run(name, func(t *testing.T) {
			var wire wireLog
			ts, err := mcp.Connect(t.Context(), mcp.Config{URL: wire.proxy(t, everythingHTTP(t).URL)})
			require.NoError(t, err)
			t.Cleanup(func() { _ = ts.Close() })

			m := modeltest.New(t, modeltest.ToolCalls(jsCall("c1", c.code)), modeltest.Text("it was cut"))
			ce, err := codeexec.New(codeexec.Config{Model: m, Sandbox: c.exec, SandboxTools: []agent.Toolset{ts}})
			require.NoError(t, err)
			res, err := engine.New(engine.Config{}).Invoke(t.Context(), ce, "run the long operation")
			require.NoError(t, err)
			require.Equal(t, "it was cut", res.Text())
			msg := errorText(t, toolResult(t, m, 1))
			require.Contains(t, msg, c.told, "the model is told which limit cut the snippet")
			require.NotContains(t, msg, "completed")

			require.Eventually(t, func() bool {
				called, cancelled := wire.calls(long)
				return len(called) == 1 && len(cancelled) == 1 && called[0] == cancelled[0]
			}, time.Minute, 20*time.Millisecond, "the server is told the call was cancelled")
		})
	}

	t.Run("declined", func(t *testing.T) {
		var wire wireLog
		ts, err := mcp.Connect(t.Context(), mcp.Config{URL: wire.proxy(t, everythingHTTP(t).URL)})
		require.NoError(t, err)
		t.Cleanup(func() { _ = ts.Close() })
		iso := executors(t, sandbox.Limits{Timeout: time.Minute})["isolated"]
		m := modeltest.New(t, modeltest.ToolCalls(jsCall("c1", code)), modeltest.Text("not allowed"))
		deny := codeexec.ApproverFunc(func(context.Context, codeexec.ApprovalRequest) (codeexec.Approval, error) {
			return codeexec.Approval{Reason: "no long operations"}, nil
		})
		ce, err := codeexec.New(codeexec.Config{Model: m, Sandbox: iso, SandboxTools: []agent.Toolset{ts}, Approver: deny})
		require.NoError(t, err)
		res, err := engine.New(engine.Config{}).Invoke(t.Context(), ce, "run the long operation")
		require.NoError(t, err)
		require.Equal(t, "not allowed", res.Text())
		require.Contains(t, errorText(t, toolResult(t, m, 1)), "no long operations")
		called, _ := wire.calls(long)
		require.Empty(t, called, "a declined snippet calls no tool")
	})
}
