//go:build linux

package hostile

import (
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/loomwork/loom/examples/internal/fakeopenai"
	"github.com/loomwork/loom/internal/testkit"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"
)

// The representative hostile snippets, written by the model of a
// code-execution agent that loom mcp serve exposes, are contained: the
// client's call gets an answer that tells what happened, the snippet
// after it runs cleanly, a second call on the same server works, and when
// the client closes the session the server ends as it should, leaving no
// worker behind.
func TestMCPServeContainsHostileSnippets(t *testing.T) {
	cases := handful()
	srv := fakeopenai.New(t, twoSnippets(cases))
	for _, s := range cases {
		t.Run(s.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			file := projectFile(t, dir, limited(t, coderYAML, s))
			r, cs, stderr := mcpServe(t, dir, srv.BaseURL(), file)
			ctx := t.Context()
			for call := range 2 {
				res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "coder", Arguments: map[string]any{"message": s.name}})
				require.NoError(t, err, "call %d; stderr: %s", call, stderr.String())
				require.False(t, res.IsError, "call %d: %+v", call, res.Content)
				text := res.Content[0].(*sdk.TextContent).Text
				var answer struct{ Message string } // the agent's answer
				require.NoError(t, json.Unmarshal([]byte(text), &answer), "call %d: %s", call, text)
				text = answer.Message
				requireTold(t, s, line(t, text, "FIRST "), line(t, text, "SECOND "))
			}
			require.NoError(t, cs.Close())
			out := r.Wait(t)
			requireEndedAsARun(t, ran{out, "", stderr.String()}, exitOK)
		})
	}
}

// mcpServe starts loom mcp serve on file under a reaper, as an MCP
// client's command, and connects to it.
func mcpServe(t *testing.T, dir, baseURL, file string) (*testkit.Reaper, *sdk.ClientSession, *testkit.SyncBuffer) {
	t.Helper()
	r := testkit.NewReaper(loom, "mcp", "serve", file, "--db", filepath.Join(dir, "cp.db"))
	r.Cmd.Dir, r.Cmd.Env = dir, env(dir, baseURL)
	stderr := &testkit.SyncBuffer{}
	r.Cmd.Stderr = stderr
	require.NoError(t, r.Prepare())
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "1"}, nil).Connect(t.Context(), &sdk.CommandTransport{Command: r.Cmd}, nil)
	require.NoError(t, err, stderr.String())
	return r, cs, stderr
}
