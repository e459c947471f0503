//go:build linux

package hostile

import (
	"testing"

	"github.com/loomwork/loom/examples/internal/fakeopenai"
	"github.com/loomwork/loom/internal/cli"
)

// The representative hostile snippets, sent by the model in a chat with
// the workflow-code-execution example on its default sandbox, are
// contained: the program ends as a chat does, the model is told what
// happened, the next turn's snippet runs cleanly, and no worker outlives
// the program.
func TestExampleChatContainsHostileSnippets(t *testing.T) {
	cases := handful()
	srv := fakeopenai.New(t, turns(cases))
	for _, s := range cases {
		t.Run(s.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			r := run(t, dir, env(dir, srv.BaseURL()), s.name+"\nprobe\n", example, "--chat", "--sandbox-timeout", s.limit())
			requireEndedAsARun(t, r, cli.ExitOK, cli.ExitSnippetFailed)
			requireTold(t, s, line(t, r.stdout, "FIRST "), line(t, r.stdout, "SECOND "))
		})
	}
}
