package main

import (
	"os"
	"testing"

	"github.com/loomwork/loom/examples/internal/exampletest"
	"github.com/loomwork/loom/examples/internal/fakeopenai"
	"github.com/stretchr/testify/require"
)

var bin string

func TestMain(m *testing.M) { os.Exit(exampletest.Main(m, &bin)) }

func TestQuickstartRunsTheToolLoop(t *testing.T) {
	srv := fakeopenai.New(t, func(req fakeopenai.Request) fakeopenai.Reply {
		if req.Index == 0 {
			return fakeopenai.Reply{ToolCalls: []fakeopenai.ToolCall{{ID: "call_1", Name: "add", Arguments: `{"A":2.5,"B":4}`}}}
		}
		return fakeopenai.Reply{Text: "2.5 + 4 = 6.5"}
	})
	res := exampletest.Run(t, bin, exampletest.OpenAIEnv(srv.BaseURL()), "")
	require.Equal(t, 0, res.Code, "stderr: %s", res.Stderr)
	require.Equal(t, "{\"message\":\"2.5 + 4 = 6.5\"} <nil>\n", res.Stdout)
	reqs := srv.Requests()
	require.Len(t, reqs, 2)
	require.Equal(t, []string{"add"}, reqs[0].Tools)
	require.Equal(t, []string{"6.5"}, reqs[1].ToolResults(), "the tool ran with the model's arguments")
}

func TestQuickstartWithoutKeyNamesTheVariable(t *testing.T) {
	res := exampletest.Run(t, bin, []string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir()}, "")
	require.NotEqual(t, 0, res.Code)
	require.Contains(t, res.Stderr, "OPENAI_API_KEY")
}
