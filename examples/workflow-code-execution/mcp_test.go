package main

import (
	"path/filepath"
	"testing"

	"github.com/loomwork/loom/examples/internal/exampletest"
	"github.com/loomwork/loom/examples/internal/fakeopenai"
	"github.com/stretchr/testify/require"
)

func TestMCPServerToolsOfferedToTheCoder(t *testing.T) {
	srv := fakeopenai.New(t, coder)
	res := exampletest.Run(t, bin, exampletest.OpenAIEnv(srv.BaseURL()), "", "--mcp", exampletest.Everything(t), "-i", "Calculate 15!")
	require.Equal(t, 0, res.Code, "stderr: %s", res.Stderr)
	reqs := srv.Requests()
	require.NotEmpty(t, reqs)
	require.Contains(t, reqs[0].Tools, "evaluateJs")
	require.Contains(t, reqs[0].Tools, "get-sum")
	require.Contains(t, reqs[0].Tools, "echo")
	require.Equal(t, "system", reqs[0].Messages[0].Role)
	require.Contains(t, reqs[0].Messages[0].Content, "get_sum(args: {", "the snippets may call the server's tools too")
}

func TestMCPFlagErrors(t *testing.T) {
	srv := fakeopenai.New(t, coder)
	res := exampletest.Run(t, bin, exampletest.OpenAIEnv(srv.BaseURL()), "", "--mcp", filepath.Join(t.TempDir(), "missing-server"), "-i", "x")
	require.Equal(t, 2, res.Code, "stderr: %s", res.Stderr)
	require.Contains(t, res.Stderr, "--mcp")
	require.Contains(t, res.Stderr, "connection to the server failed")
}
