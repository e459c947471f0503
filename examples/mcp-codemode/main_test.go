package main

import (
	"encoding/json"
	"os"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/loomwork/loom/examples/internal/exampletest"
	"github.com/loomwork/loom/examples/internal/fakeopenai"
)

var bin string

func TestMain(m *testing.M) { os.Exit(exampletest.Main(m, &bin)) }

// snippet calls two of the server's tools in one run and combines them.
const snippet = `const s = await tools.get_sum({a: 2, b: 40});
const e = await tools.echo({message: s.message});
e.message`

// codeModeModel writes one snippet, then answers with its result.
func codeModeModel(req fakeopenai.Request) fakeopenai.Reply {
	if last := req.Last(); last.Role == "tool" {
		var res struct{ Result string }
		_ = json.Unmarshal([]byte(last.Content), &res)
		return fakeopenai.Reply{Text: "The server says: " + res.Result}
	}
	args, _ := json.Marshal(map[string]string{"code": snippet})
	return fakeopenai.Reply{ToolCalls: []fakeopenai.ToolCall{{ID: "call_1", Name: "evaluateJs", Arguments: string(args)}}}
}

func TestSnippetCallsTheServersTools(t *testing.T) {
	for _, sb := range [][]string{{"--sandbox", "isolated"}, {"--sandbox", "inprocess", "--trusted-code"}} {
		t.Run(sb[1], func(t *testing.T) {
			srv := fakeopenai.New(t, codeModeModel)
			args := append(append([]string{"--mcp", exampletest.Everything(t)}, sb...), "Add 2 and 40, then echo it")
			res := exampletest.Run(t, bin, exampletest.OpenAIEnv(srv.BaseURL()), "", args...)
			require.Equal(t, 0, res.Code, "stderr: %s", res.Stderr)
			require.Contains(t, res.Stdout, "The server says: Echo: The sum of 2 and 40 is 42.")
			reqs := srv.Requests()
			require.Len(t, reqs, 2, "one snippet made both tool calls: two model calls in all")
			require.Equal(t, []string{"evaluateJs"}, reqs[0].Tools, "the server's tools are offered to the code only")
			sys := reqs[0].Messages[0].Content
			require.Contains(t, sys, "get_sum(args: {")
			require.Contains(t, sys, "echo(args: {")
		})
	}
}

func TestMaxCallsMustNotBeNegative(t *testing.T) {
	srv := fakeopenai.New(t, codeModeModel)
	res := exampletest.Run(t, bin, exampletest.OpenAIEnv(srv.BaseURL()), "", "--mcp", exampletest.Everything(t), "--max-calls", "-1", "x")
	require.Equal(t, 2, res.Code, "stderr: %s", res.Stderr)
	require.Contains(t, res.Stderr, "MaxCalls is -1")
}

// The program runs the model's code in process only with the user's
// consent; the default is the isolated sandbox.
func TestInProcessNeedsTrustedCode(t *testing.T) {
	srv := fakeopenai.New(t, codeModeModel)
	res := exampletest.Run(t, bin, exampletest.OpenAIEnv(srv.BaseURL()), "", "--mcp", exampletest.Everything(t), "--sandbox", "inprocess", "x")
	require.Equal(t, 2, res.Code, "stderr: %s", res.Stderr)
	require.Contains(t, res.Stderr, "it is for trusted code only; pass --trusted-code to accept that")
	require.Empty(t, srv.Requests(), "refused before any model call")
}
