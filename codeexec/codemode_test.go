package codeexec_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/loomwork/loom/agent"
	"github.com/loomwork/loom/checkpoint"
	"github.com/loomwork/loom/codeexec"
	"github.com/loomwork/loom/engine"
	"github.com/loomwork/loom/mcp"
	"github.com/loomwork/loom/model"
	"github.com/loomwork/loom/model/modeltest"
	"github.com/loomwork/loom/sandbox"
)

// hostTools is a toolset of get-sum, echo and fail, as loom agents.
func hostTools(t *testing.T) agent.Toolset {
	t.Helper()
	type sumIn struct {
		A float64 `json:"a" jsonschema:"description=The first number."`
		B float64 `json:"b"`
	}
	sum, err := agent.NewFunc("get-sum", "Adds two numbers.", func(_ context.Context, in sumIn) (map[string]float64, error) {
		return map[string]float64{"sum": in.A + in.B}, nil
	})
	require.NoError(t, err)
	type echoIn struct {
		Message string `json:"message"`
	}
	echo, err := agent.NewFunc("echo", "Echoes the message.", func(_ context.Context, in echoIn) (map[string]string, error) {
		return map[string]string{"echo": in.Message}, nil
	})
	require.NoError(t, err)
	fail, err := agent.NewFunc("fail", "Always fails.", func(context.Context, struct{}) (struct{}, error) {
		return struct{}{}, errors.New("the service is down")
	})
	require.NoError(t, err)
	return agent.ToolsetFunc(func(context.Context) ([]agent.Agent, error) { return []agent.Agent{sum, echo, fail}, nil })
}

// executors are the two sandboxes code mode must behave alike on.
func executors(t *testing.T, lim sandbox.Limits) map[string]sandbox.Executor {
	t.Helper()
	ip, err := sandbox.NewInProcess(sandbox.InProcessConfig{Limits: lim})
	require.NoError(t, err)
	iso, err := sandbox.NewIsolated(sandbox.IsolatedConfig{Limits: lim, Concurrency: 1})
	require.NoError(t, err)
	t.Cleanup(func() { _ = iso.Close() })
	return map[string]sandbox.Executor{"in-process": ip, "isolated": iso}
}

func TestCodeMode(t *testing.T) {
	for _, tc := range []struct {
		name    string
		code    string
		timeout time.Duration
		calls   sandbox.CallLimits
		check   func(t *testing.T, content string, isError bool)
	}{
		{name: "two tools combined", code: `const [s, e] = await Promise.all([tools.get_sum({a: 2, b: 40}), tools.echo({message: 'hi'})]); e.echo + ' ' + s.sum`,
			check: func(t *testing.T, content string, isError bool) {
				require.False(t, isError, content)
				require.JSONEq(t, `{"result":"hi 42","logs":[]}`, content)
			}},
		{name: "a tool error caught by try", code: `let r; try { await tools.fail() } catch (e) { r = e.name + ': ' + e.message } r`,
			check: func(t *testing.T, content string, isError bool) {
				require.False(t, isError, content)
				require.Contains(t, content, "ToolError: tools.fail: the service is down")
			}},
		{name: "the call cap", code: `let n = 0, r; for (;;) { try { await tools.get_sum({a: n, b: 1}); n++ } catch (e) { r = e.name; break } } ({n, r})`,
			calls: sandbox.CallLimits{MaxCalls: 3},
			check: func(t *testing.T, content string, isError bool) {
				require.False(t, isError, content)
				require.Contains(t, content, `{"n":3,"r":"RangeError"}`)
			}},
		{name: "a loop on calls ends at the deadline", code: `for (;;) { try { await tools.get_sum({a: 1, b: 1}) } catch {} }`, timeout: 300 * time.Millisecond,
			check: func(t *testing.T, content string, isError bool) {
				require.True(t, isError, content)
				require.Contains(t, content, "Timeout")
			}},
	} {
		lim := sandbox.Limits{Timeout: time.Minute}
		if tc.timeout > 0 {
			lim.Timeout = tc.timeout
		}
		for name, exec := range executors(t, lim) {
			t.Run(tc.name+"/"+name, func(t *testing.T) {
				m := modeltest.New(t, modeltest.ToolCalls(jsCall("c1", tc.code)), modeltest.Text("done"))
				ce, err := codeexec.New(codeexec.Config{Model: m, Sandbox: exec, SandboxTools: []agent.Toolset{hostTools(t)}, SandboxCalls: tc.calls, MaxRetries: 1})
				require.NoError(t, err)
				res, err := engine.New(engine.Config{}).Invoke(t.Context(), ce, "compute it")
				require.NoError(t, err)
				require.Equal(t, "done", res.Text())
				sys := m.Request(0).Messages[0].Text()
				require.Contains(t, sys, "```ts\ndeclare const tools: {\n  /** Adds two numbers. */\n  get_sum(args: {\n    /** The first number. */\n    a: number;\n    b: number;\n  }): Promise<Record<string, number>>;\n", "the instructions list the functions")
				r := toolResult(t, m, 1)
				tc.check(t, string(r.Content), r.IsError)
			})
		}
	}
}

func TestCodeModeConfig(t *testing.T) {
	sb := &fakeSandbox{}
	_, err := codeexec.New(codeexec.Config{Tool: sb.agent(t), SandboxTools: []agent.Toolset{hostTools(t)}})
	require.ErrorIs(t, err, agent.ErrInvalidConfig)
	require.ErrorContains(t, err, "leave Tool nil")
	ip, err := sandbox.NewInProcess(sandbox.InProcessConfig{})
	require.NoError(t, err)
	_, err = codeexec.New(codeexec.Config{Sandbox: ip, SandboxTools: []agent.Toolset{hostTools(t)}, SandboxCalls: sandbox.CallLimits{MaxCalls: -1}})
	require.ErrorContains(t, err, "MaxCalls is -1")
}

// everythingHTTP starts the pinned server-everything over streamable HTTP
// on a free port and returns its config.
func everythingHTTP(t *testing.T) mcp.Config {
	stdio := everything(t)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	port := l.Addr().(*net.TCPAddr).Port
	require.NoError(t, l.Close())
	cmd := exec.Command("node", stdio.Command[1], "streamableHttp")
	cmd.Env = append(os.Environ(), fmt.Sprintf("PORT=%d", port))
	require.NoError(t, cmd.Start())
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	cfg := mcp.Config{URL: fmt.Sprintf("http://127.0.0.1:%d/mcp", port)}
	require.Eventually(t, func() bool {
		c, err := net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", port))
		if err == nil {
			_ = c.Close()
		}
		return err == nil
	}, 30*time.Second, 50*time.Millisecond, "server-everything did not start listening")
	return cfg
}

// everything starts the pinned server-everything over stdio.
func everything(t *testing.T) mcp.Config {
	script, err := filepath.Abs(filepath.Join("..", ".ci", "mcp", "node_modules", "@modelcontextprotocol", "server-everything", "dist", "index.js"))
	require.NoError(t, err)
	_, statErr := os.Stat(script)
	_, nodeErr := exec.LookPath("node")
	if statErr != nil || nodeErr != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("server-everything is missing (%v, %v): .ci/mcp.sh runs npm ci in .ci/mcp", statErr, nodeErr)
		}
		t.Skip("server-everything not installed: run `npm ci --prefix .ci/mcp`")
	}
	return mcp.Config{Command: []string{"node", script, "stdio"}}
}

// TestCodeModeWithMCPServer: one snippet calls two tools of the real
// server-everything and combines their results.
func TestCodeModeWithMCPServer(t *testing.T) {
	t.Run("stdio", func(t *testing.T) { codeModeWithServer(t, everything(t)) })
	t.Run("http", func(t *testing.T) { codeModeWithServer(t, everythingHTTP(t)) })
}

func codeModeWithServer(t *testing.T, cfg mcp.Config) {
	ts, err := mcp.Connect(t.Context(), cfg)
	require.NoError(t, err)
	t.Cleanup(func() { _ = ts.Close() })
	code := `const [s, e] = await Promise.all([tools.get_sum({a: 2, b: 40}), tools.echo({message: 'hello'})]);
let bad; try { await tools.get_sum({a: 'two'}) } catch (err) { bad = err.name }
({sum: s.message, echo: e.message, bad})`
	for name, exec := range executors(t, sandbox.Limits{Timeout: time.Minute}) {
		t.Run(name, func(t *testing.T) {
			m := modeltest.New(t, modeltest.ToolCalls(jsCall("c1", code)), modeltest.Text("42"))
			ce, err := codeexec.New(codeexec.Config{Model: m, Sandbox: exec, SandboxTools: []agent.Toolset{ts}})
			require.NoError(t, err)
			res, err := engine.New(engine.Config{}).Invoke(t.Context(), ce, "2 + 40, and echo hello")
			require.NoError(t, err)
			require.Equal(t, "42", res.Text())
			sys := m.Request(0).Messages[0].Text()
			require.Contains(t, sys, "get_sum(args: {")
			require.Contains(t, sys, "echo(args: {")
			r := toolResult(t, m, 1)
			require.False(t, r.IsError, string(r.Content))
			var out struct {
				Result struct{ Sum, Echo, Bad string }
			}
			require.NoError(t, json.Unmarshal(r.Content, &out))
			require.Equal(t, "The sum of 2 and 40 is 42.", out.Result.Sum)
			require.True(t, strings.HasSuffix(out.Result.Echo, "hello"), out.Result.Echo)
			require.Equal(t, "TypeError", out.Result.Bad, "arguments are checked against the MCP tool's schema")
		})
	}
}

// TestCodeModeQuestionResumes: a tool called from a snippet that asks a
// person interrupts the run as a direct call would; resumed with the
// answer, the snippet runs again, the calls it made before are replayed
// from the record (not run again), and the asking call gets the answer.
func TestCodeModeQuestionResumes(t *testing.T) {
	var sums atomic.Int32
	type pair struct{ A, B float64 }
	sum, err := agent.NewFunc("get-sum", "Adds A and B.", func(_ context.Context, in pair) (float64, error) {
		sums.Add(1)
		return in.A + in.B, nil
	})
	require.NoError(t, err)
	confirm, err := agent.NewFunc("confirm", "Asks a person to confirm a value.", func(ctx context.Context, in map[string]any) (json.RawMessage, error) {
		return agent.Ask(ctx, "confirm", in, nil)
	})
	require.NoError(t, err)
	ts := agent.ToolsetFunc(func(context.Context) ([]agent.Agent, error) { return []agent.Agent{sum, confirm}, nil })
	code := `const [x, y] = await Promise.all([tools.get_sum({A: 1, B: 2}), tools.get_sum({A: 3, B: 4})]);
const ok = await tools.confirm({value: x + y});
({total: x + y, ok})`
	m := modeltest.New(t, modeltest.ToolCalls(jsCall("c1", code)))
	ip, err := sandbox.NewInProcess(sandbox.InProcessConfig{})
	require.NoError(t, err)
	ce, err := codeexec.New(codeexec.Config{Model: m, Sandbox: ip, SandboxTools: []agent.Toolset{ts}})
	require.NoError(t, err)
	e := engine.New(engine.Config{Checkpoints: checkpoint.NewMemory()})
	_, err = e.Invoke(t.Context(), ce, "Add and confirm")
	var ie *agent.InterruptedError
	require.ErrorAs(t, err, &ie)
	require.Len(t, ie.Questions, 1)
	q := ie.Questions[0]
	require.Equal(t, "confirm", q.Kind)
	require.JSONEq(t, `{"value":10}`, string(q.Payload))
	require.EqualValues(t, 2, sums.Load())

	m.Append(modeltest.Func(func(req model.Request) modeltest.Turn {
		return modeltest.Text(string(req.Messages[len(req.Messages)-1].ToolResults()[0].Content))
	}))
	res, err := e.ResumeInvoke(t.Context(), ce, q.Run, map[string]json.RawMessage{q.ID: json.RawMessage(`"yes"`)})
	require.NoError(t, err)
	require.JSONEq(t, `{"result":{"total":10,"ok":"yes"},"logs":[]}`, res.Text())
	require.EqualValues(t, 2, sums.Load(), "the calls made before the question were replayed, not run again")
}
