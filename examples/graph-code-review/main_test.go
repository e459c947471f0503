package main

import (
	"os"
	"strings"
	"testing"

	"github.com/loomwork/loom/examples/internal/exampletest"
	"github.com/loomwork/loom/examples/internal/fakeopenai"
	"github.com/stretchr/testify/require"
)

var bin string

func TestMain(m *testing.M) { os.Exit(exampletest.Main(m, &bin)) }

// fakeModel plays the coder and the reviewer: the coder's first code calls a
// function it never defined; told it failed, it writes a loop. The
// reviewer approves both.
func fakeModel(req fakeopenai.Request) fakeopenai.Reply {
	if strings.Contains(req.Messages[0].Content, "You review") {
		return fakeopenai.Reply{Text: "APPROVE"}
	}
	if strings.Contains(req.Last().Content, "running it failed") {
		return fakeopenai.Reply{Text: "let f = 1;\nfor (let i = 2; i <= 5; i++) f *= i;\nf"}
	}
	return fakeopenai.Reply{Text: "factorial(5)"}
}

// The run stops at the approval in one process; the next process resumes
// it, the executor fails, the error handler sends it back to the coder,
// and it stops at the approval again; a third process finishes it. No
// model call is made twice.
func TestAskApproveAcrossProcesses(t *testing.T) {
	srv := fakeopenai.New(t, fakeModel)
	env := exampletest.OpenAIEnv(srv.BaseURL())
	dir := t.TempDir()

	res := exampletest.RunIn(t, dir, bin, env, "", "ask", "What is 5!?")
	require.Equal(t, 3, res.Code, "a run that waits for an answer exits 3; stderr: %s", res.Stderr)
	require.Contains(t, res.Stdout, "Waiting for approval of:\n    factorial(5)\n")
	require.Len(t, srv.Requests(), 2)

	res = exampletest.RunIn(t, dir, bin, env, "", "approve")
	require.Equal(t, 3, res.Code, "stderr: %s", res.Stderr)
	require.Contains(t, res.Stdout, "executor failed: Uncaught ReferenceError: factorial is not defined")
	require.Contains(t, res.Stdout, "error handler: attempt 1 of 3")
	require.Contains(t, res.Stdout, "Waiting for approval of:\n    let f = 1;\n")
	reqs := srv.Requests()
	require.Len(t, reqs, 4)
	require.Contains(t, reqs[2].Last().Content, "Feedback: running it failed: Uncaught ReferenceError")

	res = exampletest.RunIn(t, dir, bin, env, "", "approve")
	require.Equal(t, 0, res.Code, "stderr: %s", res.Stderr)
	require.True(t, strings.HasSuffix(res.Stdout, "\nResult: 120\n"), res.Stdout)
	require.Len(t, srv.Requests(), 4, "the resumes made no model call again")

	res = exampletest.RunIn(t, dir, bin, env, "", "approve")
	require.Equal(t, 1, res.Code)
	require.Contains(t, res.Stderr, `run "review" waits for no approval`)

	res = exampletest.RunIn(t, dir, bin, env, "", "history")
	require.Equal(t, 0, res.Code, "stderr: %s", res.Stderr)
	require.Contains(t, res.Stdout, "step 2 next [approval]\n")
	require.Contains(t, res.Stdout, "step 9 next []\n")
}

func TestRejectSendsItBackToTheCoder(t *testing.T) {
	srv := fakeopenai.New(t, fakeModel)
	env := exampletest.OpenAIEnv(srv.BaseURL())
	dir := t.TempDir()
	res := exampletest.RunIn(t, dir, bin, env, "", "ask", "What is 5!?")
	require.Equal(t, 3, res.Code, "stderr: %s", res.Stderr)
	res = exampletest.RunIn(t, dir, bin, env, "", "reject", "define", "it")
	require.Equal(t, 3, res.Code, "stderr: %s", res.Stderr)
	require.Contains(t, res.Stdout, "declined: define it")
	require.Contains(t, srv.Requests()[2].Last().Content, "Feedback: a person declined to run it: define it")
}

func TestMermaidNeedsNoModel(t *testing.T) {
	res := exampletest.Run(t, bin, nil, "", "mermaid")
	require.Equal(t, 0, res.Code, "stderr: %s", res.Stderr)
	require.Contains(t, res.Stdout, "  n2{{\"approval\"}}\n")
	require.Contains(t, res.Stdout, "  n4 -.-> n0\n", "the error handler loops back to the coder")
}

// TestCommandLine: --help on stdout with status 0, in the grammar of every
// loom program; a missing key, a bad flag and an unknown command are
// configuration errors (status 2) that say what to do.
func TestCommandLine(t *testing.T) {
	res := exampletest.Run(t, bin, nil, "", "--help")
	require.Equal(t, 0, res.Code, "stderr: %s", res.Stderr)
	for _, want := range []string{"--db FILE", "--thread ID", "--model PROVIDER[:MODEL]", "Exit status"} {
		require.Contains(t, res.Stdout, want)
	}
	res = exampletest.Run(t, bin, []string{"OPENAI_API_KEY="}, "", "ask", "What is 5!?")
	require.Equal(t, 2, res.Code, "stderr: %s", res.Stderr)
	require.Contains(t, res.Stderr, "set OPENAI_API_KEY in the environment or in a .env.local file")
	res = exampletest.Run(t, bin, nil, "", "--dbb", "x", "history")
	require.Equal(t, 2, res.Code)
	require.Contains(t, res.Stderr, "flag provided but not defined: -dbb")
	res = exampletest.Run(t, bin, nil, "", "aks")
	require.Equal(t, 2, res.Code)
	require.Contains(t, res.Stderr, `unknown command "aks"`)
}
