package main

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/loomwork/loom/examples/internal/exampletest"
	"github.com/loomwork/loom/examples/internal/fakeopenai"
	"github.com/stretchr/testify/require"
)

var bin string

func TestMain(m *testing.M) { os.Exit(exampletest.Main(m, &bin)) }

func call(id, code string) fakeopenai.Reply {
	args, _ := json.Marshal(map[string]string{"code": code})
	return fakeopenai.Reply{ToolCalls: []fakeopenai.ToolCall{{ID: id, Name: "evaluateJs", Arguments: string(args)}}}
}

// coder tries a recursive snippet, switches to a loop when that is
// declined, and answers with the value.
func coder(req fakeopenai.Request) fakeopenai.Reply {
	last := req.Last()
	switch {
	case last.Role == "user":
		return call("c1", "const fib = n => n < 2 ? n : fib(n - 1) + fib(n - 2);\nfib(30)")
	case strings.Contains(last.Content, "not approved to run"):
		return call("c2", "let a = 0, b = 1;\nfor (let i = 0; i < 30; i++) [a, b] = [b, a + b];\na")
	}
	var out struct {
		Result json.RawMessage `json:"result"`
	}
	_ = json.Unmarshal([]byte(last.Content), &out)
	return fakeopenai.Reply{Text: "The 30th Fibonacci number is " + string(out.Result) + "."}
}

func TestApprovalDeclinedThenApproved(t *testing.T) {
	srv := fakeopenai.New(t, coder)
	res := exampletest.Run(t, bin, exampletest.OpenAIEnv(srv.BaseURL()), "too slow, use a loop\ny\n", "-i", "What is the 30th Fibonacci number?")
	require.Equal(t, 0, res.Code, "stderr: %s", res.Stderr)
	require.Contains(t, res.Stdout, "[evaluateJs] error: not approved to run: too slow, use a loop")
	require.Contains(t, res.Stdout, "[evaluateJs] result: 832040")
	require.Contains(t, res.Stdout, "The 30th Fibonacci number is 832040.\n")
	require.True(t, strings.HasSuffix(res.Stdout, "\nApprovals:\n  snippet 1: declined: too slow, use a loop\n  snippet 2: approved\n"), res.Stdout)
	reqs := srv.Requests()
	require.Len(t, reqs, 3)
	require.Contains(t, reqs[1].Last().Content, "too slow, use a loop", "the coder is told why")
}

func TestApprovalNeedsSomeoneToAsk(t *testing.T) {
	srv := fakeopenai.New(t, coder)
	res := exampletest.Run(t, bin, exampletest.OpenAIEnv(srv.BaseURL()), "What is the 30th Fibonacci number?\n")
	require.Equal(t, 2, res.Code)
	require.Contains(t, res.Stderr, "no answer can be read")
	require.Empty(t, srv.Requests())
}

func TestApprovalWithStdinClosedRefusesAtOnce(t *testing.T) {
	// The question as an argument and nothing on stdin: no answer can ever
	// be read, so the example refuses before calling the model.
	srv := fakeopenai.New(t, coder)
	res := exampletest.Run(t, bin, exampletest.OpenAIEnv(srv.BaseURL()), "", "What is the 30th Fibonacci number?")
	require.Equal(t, 2, res.Code, "stdout: %s", res.Stdout)
	require.Contains(t, res.Stderr, "stdin is empty or closed")
	require.Empty(t, srv.Requests(), "the model is not called")
}
