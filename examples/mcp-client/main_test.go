package main

import (
	"encoding/json"
	"os"
	"testing"

	"github.com/loomwork/loom/examples/internal/exampletest"
	"github.com/loomwork/loom/examples/internal/fakeopenai"
	"github.com/stretchr/testify/require"
)

var bin string

func TestMain(m *testing.M) { os.Exit(exampletest.Main(m, &bin)) }

// sumModel calls get-sum, then answers with the tool's message.
func sumModel(req fakeopenai.Request) fakeopenai.Reply {
	if last := req.Last(); last.Role == "tool" {
		var res struct{ Message string }
		_ = json.Unmarshal([]byte(last.Content), &res)
		return fakeopenai.Reply{Text: "The server says: " + res.Message}
	}
	return fakeopenai.Reply{ToolCalls: []fakeopenai.ToolCall{{ID: "call_1", Name: "get-sum", Arguments: `{"a":2,"b":40}`}}}
}

func TestAnswersWithTheServersTool(t *testing.T) {
	srv := fakeopenai.New(t, sumModel)
	res := exampletest.Run(t, bin, exampletest.OpenAIEnv(srv.BaseURL()), "", "--mcp", exampletest.Everything(t), "What is 2 + 40?")
	require.Equal(t, 0, res.Code, "stderr: %s", res.Stderr)
	require.Contains(t, res.Stdout, "The server says: The sum of 2 and 40 is 42.")
	reqs := srv.Requests()
	require.Len(t, reqs, 2)
	require.Contains(t, reqs[0].Tools, "get-sum")
	require.Contains(t, reqs[0].Tools, "get-tiny-image")
}
