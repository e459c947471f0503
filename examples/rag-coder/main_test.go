package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/loomwork/loom/examples/internal/exampletest"
	"github.com/loomwork/loom/examples/internal/fakeopenai"
)

var bin string

func TestMain(m *testing.M) { os.Exit(exampletest.Main(m, &bin)) }

// TestAsksTheCoderWithTheNotes runs the example with the offline embedder
// against a local OpenAI-format server: the coder searches the notes, finds
// the leave passage, computes with evaluateJs and answers.
func TestAsksTheCoderWithTheNotes(t *testing.T) {
	srv := fakeopenai.New(t, func(req fakeopenai.Request) fakeopenai.Reply {
		switch req.Index {
		case 0:
			return fakeopenai.Reply{ToolCalls: []fakeopenai.ToolCall{{ID: "call_1", Name: "search_knowledge", Arguments: `{"query":"days of paid leave per year","k":2}`}}}
		case 1:
			return fakeopenai.Reply{ToolCalls: []fakeopenai.ToolCall{{ID: "call_2", Name: "evaluateJs", Arguments: `{"code":"25 * 6"}`}}}
		}
		return fakeopenai.Reply{Text: "A team of 6 gets 150 days of leave a year."}
	})
	docs, err := filepath.Abs("docs")
	require.NoError(t, err)
	res := exampletest.Run(t, bin, exampletest.OpenAIEnv(srv.BaseURL()), "",
		"--docs", docs, "How many days of leave does a team of 6 get in a year?")
	require.Equal(t, 0, res.Code, "stderr: %s", res.Stderr)
	require.Contains(t, res.Stdout, "[search_knowledge] call {\"query\":\"days of paid leave per year\",\"k\":2}\n")
	require.Contains(t, res.Stdout, "[evaluateJs] result: 150\n")
	require.True(t, strings.HasSuffix(res.Stdout, "\nA team of 6 gets 150 days of leave a year.\n"), "the answer ends the output:\n%s", res.Stdout)
	require.Contains(t, res.Stderr, "ingest: leave.md (1/1 chunks, file 2 of 3)")

	reqs := srv.Requests()
	require.Len(t, reqs, 3)
	require.ElementsMatch(t, []string{"search_knowledge", "evaluateJs"}, reqs[0].Tools)
	found := reqs[1].ToolResults()
	require.Len(t, found, 1)
	require.True(t, strings.HasPrefix(found[0], `{"matches":[{"id":"leave.md#0"`), "the best passage is the leave note: %s", found[0])
	require.Contains(t, found[0], "25 days of paid leave")
	results := reqs[2].ToolResults()
	require.Len(t, results, 2)
	require.JSONEq(t, `{"result":150,"logs":[]}`, results[1], "the sandbox computed the answer")
}

// TestRefusesBadNotesAndFlags: an empty folder and an unknown embedder are
// configuration errors (status 2) that name the flag, before any model call.
func TestRefusesBadNotesAndFlags(t *testing.T) {
	res := exampletest.Run(t, bin, exampletest.OpenAIEnv("http://127.0.0.1:1/v1"), "", "--docs", t.TempDir(), "why?")
	require.Equal(t, 2, res.Code, res.Stderr)
	require.Contains(t, res.Stderr, "no .md or .txt files")

	res = exampletest.Run(t, bin, exampletest.OpenAIEnv("http://127.0.0.1:1/v1"), "", "--embedder", "word2vec", "why?")
	require.Equal(t, 2, res.Code, res.Stderr)
	require.Contains(t, res.Stderr, `--embedder "word2vec": use hash, openai, ollama or gemini`)

	res = exampletest.Run(t, bin, nil, "", "--help")
	require.Equal(t, 0, res.Code, res.Stderr)
	for _, flag := range []string{"--docs DIR", "--db FILE", "--embedder EMBEDDER", "--model", "-i TEXT", "--chat"} {
		require.Contains(t, res.Stdout, flag)
	}
}
