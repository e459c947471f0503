package jstool

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/loomwork/loom/agent"
	"github.com/loomwork/loom/model"
	"github.com/loomwork/loom/model/modeltest"
	"github.com/loomwork/loom/sandbox"
)

func newTestTool(t *testing.T) agent.Agent {
	t.Helper()
	e := newTestInProcess(t, sandbox.InProcessConfig{Limits: sandbox.Limits{Timeout: 300 * time.Millisecond, ResultBytes: 1 << 10}})
	tool, err := New(e, Config{})
	require.NoError(t, err)
	return tool
}

func TestToolContract(t *testing.T) {
	tool := newTestTool(t)
	require.Equal(t, "evaluateJs", tool.Info().Name)
	for _, rule := range []string{"final expression", "require", "join('')", "top-level await", "300ms", "1 KiB"} {
		require.Contains(t, tool.Info().Description, rule)
	}
	var in struct {
		Properties map[string]any `json:"properties"`
	}
	require.NoError(t, json.Unmarshal(tool.Info().InputSchema, &in))
	require.Contains(t, in.Properties, "code")
	require.Contains(t, in.Properties, "jsCode")
	var out struct {
		Properties map[string]any `json:"properties"`
		Required   []string       `json:"required"`
	}
	require.NoError(t, json.Unmarshal(tool.Info().OutputSchema, &out))
	require.ElementsMatch(t, []string{"result", "logs"}, out.Required)
}

func TestToolResults(t *testing.T) {
	tool := newTestTool(t)
	cases := []struct {
		name  string
		input any
		want  string
	}{
		{"code", map[string]any{"code": "console.log('fact'); function f(n){return n<=1?1:n*f(n-1)} f(10)"}, `{"result":3628800,"logs":["fact"]}`},
		{"jsCode alias", map[string]any{"jsCode": "console.warn('careful'); [1,2,3].reduce((a,b)=>a+b)"}, `{"result":6,"logs":["[warn] careful"]}`},
		{"top-level await", json.RawMessage(`{"code":"const v = await Promise.resolve({ok: true}); v"}`), `{"result":{"ok":true},"logs":[]}`},
		{"undefined result", map[string]any{"code": "let x = 1"}, `{"result":null,"logs":[],"note":"` + undefinedNote + `"}`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			out, err := agent.Invoke(context.Background(), tool, tc.input)
			require.NoError(t, err)
			require.JSONEq(t, tc.want, string(out))
		})
	}
}

func TestToolFailuresAreModelReadableErrors(t *testing.T) {
	tool := newTestTool(t)
	cases := []struct {
		name string
		code string
		want error
		text string
	}{
		{"syntax", "let x = ;", sandbox.ErrSyntax, "SyntaxError at line 1"},
		{"exception with logs", "console.log('step 1'); null.x", sandbox.ErrException, "Console output before the error:\nstep 1"},
		{"thrown value", "throw 'boom'", sandbox.ErrThrownValue, `"boom"`},
		{"timeout", "for(;;){}", sandbox.ErrTimeout, "join('')"},
		{"stack", "function f(){return f()} f()", sandbox.ErrStackOverflow, "Maximum call stack size exceeded"},
		{"output", "'x'.repeat(5000)", sandbox.ErrOutputTooLarge, "1 KiB"},
		{"nesting", nest(300), sandbox.ErrNestingTooDeep, "nested too deeply"},
		{"unsettled", "new Promise(() => {})", sandbox.ErrUnsettledPromise, "never settled"},
		{"cyclic", "const a = {}; a.self = a; a", sandbox.ErrCyclicValue, "result.self"},
		{"no require", "require('fs')", sandbox.ErrException, "no require"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := agent.Invoke(context.Background(), tool, map[string]any{"code": tc.code})
			require.ErrorIs(t, err, tc.want)
			require.Contains(t, err.Error(), tc.text)
		})
	}
	_, err := agent.Invoke(context.Background(), tool, map[string]any{})
	require.ErrorContains(t, err, "code field")
}

func nest(n int) string {
	b := make([]byte, 0, 2*n)
	for i := 0; i < n; i++ {
		b = append(b, '[')
	}
	for i := 0; i < n; i++ {
		b = append(b, ']')
	}
	return string(b)
}

// TestToolInTheToolLoop has a scripted model call evaluateJs twice: a
// failing snippet comes back as an error result the model can read, then
// the corrected one gives the answer.
func TestToolInTheToolLoop(t *testing.T) {
	tool := newTestTool(t)
	m := modeltest.New(t,
		modeltest.ToolCalls(modeltest.Call("c1", "evaluateJs", `{"code":"fact(5)"}`)),
		modeltest.ToolCalls(modeltest.Call("c2", "evaluateJs", `{"code":"function fact(n){return n<=1?1:n*fact(n-1)} fact(5)"}`)),
		modeltest.Text("5! = 120"),
	)
	coder, err := agent.NewAI(agent.AIConfig{Name: "coder", Model: m, Tools: []agent.Agent{tool}})
	require.NoError(t, err)
	out, err := agent.Invoke(context.Background(), coder, "5! = ?")
	require.NoError(t, err)
	require.Contains(t, string(out), "120")

	results := toolResults(m.Requests())
	require.Len(t, results, 2)
	require.True(t, results[0].IsError)
	require.Contains(t, string(results[0].Content), "ReferenceError: fact is not defined")
	require.False(t, results[1].IsError)
	require.JSONEq(t, `{"result":120,"logs":[]}`, string(results[1].Content))
}

func toolResults(reqs []model.Request) []model.ToolResult {
	last := reqs[len(reqs)-1]
	var out []model.ToolResult
	for _, msg := range last.Messages {
		for _, p := range msg.Parts {
			if tr, ok := p.(model.ToolResult); ok {
				out = append(out, tr)
			}
			if tr, ok := p.(*model.ToolResult); ok {
				out = append(out, *tr)
			}
		}
	}
	return out
}

func TestNewToolNeedsAnExecutor(t *testing.T) {
	_, err := New(nil, Config{})
	require.Error(t, err)
	require.False(t, errors.Is(err, sandbox.ErrInternal))
}
