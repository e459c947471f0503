//go:build linux

package hostile

import (
	"testing"

	"github.com/loomwork/loom/examples/internal/exampletest"
	"github.com/loomwork/loom/examples/internal/fakeopenai"
	"github.com/loomwork/loom/internal/cli"
)

// Hostile snippets in code mode, whose tools.* functions call an MCP
// server's tools, are contained by the example: a flood of calls stops at
// the call limit, a tool slower than the snippet's time limit ends in a
// timeout that names the calls it waited for rather than the tool's
// answer, the next turn's snippet runs
// cleanly, and no worker outlives the program.
func TestExampleCodeModeContainsHostileSnippets(t *testing.T) {
	server := exampletest.Everything(t)
	cases := []snippet{
		{name: "tool call flood", code: `for (;;) await tools.echo({message: 'x'})`, told: []string{"call"}},
		{name: "tool slower than the time limit", code: `await tools.trigger_long_running_operation({duration: 30, steps: 3})`, told: []string{"waited for tool calls (tools.trigger_long_running_operation)"}, atLimit: true},
		{name: "tool calls that never settle", code: `await Promise.all(Array.from({length: 50}, () => tools.trigger_long_running_operation({duration: 30, steps: 1})))`, told: []string{"waited for tool calls (tools.trigger_long_running_operation)"}, atLimit: true},
	}
	srv := fakeopenai.New(t, turns(cases))
	for _, s := range cases {
		t.Run(s.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			r := run(t, dir, env(dir, srv.BaseURL()), s.name+"\nprobe\n", example, "--chat", "--sandbox-timeout", s.limit(), "--mcp", server)
			requireEndedAsARun(t, r, cli.ExitOK, cli.ExitSnippetFailed)
			first := line(t, r.stdout, "FIRST ")
			t.Logf("told: %.400s", first)
			requireTold(t, s, first, line(t, r.stdout, "SECOND "))
		})
	}
}
