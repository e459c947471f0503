//go:build linux

package hostile

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loomwork/loom/examples/internal/fakeopenai"
	"github.com/loomwork/loom/internal/cli"
	"github.com/stretchr/testify/require"
)

// terminalControls are characters that drive a terminal (clear it, hide
// or recolour text, set its title, write the clipboard) or reorder text.
var terminalControls = []string{"\x1b", "\x07", "\x08", "\u009b", "\u202e"}

// escapes writes terminal controls everywhere a user sees a snippet: its
// code (a raw ESC from the model), its console, its error, and the
// model's answer, which quotes the result.
var escapes = snippet{name: "terminal escapes",
	code: "console.log('LOG\\x1b]0;pwned\\x07'); const e = new Error('ERR\\x1b[2J\\u202e'); e.name = 'N\\x1b[31m'; throw e // \x1b[8m hidden",
	told: []string{"err"}}

// requireNoTerminalControls checks that out shows no terminal control
// raw, and shows them as escapes.
func requireNoTerminalControls(t *testing.T, out string) {
	t.Helper()
	for _, c := range terminalControls {
		require.NotContains(t, out, c, "a raw terminal control reached the user")
	}
	require.Contains(t, out, `\x1b`, "the control is shown as text")
}

// A snippet's terminal escapes reach the user of the example as text,
// never as controls: in the code shown, its error, and the answer.
func TestExampleShowsTerminalEscapesAsText(t *testing.T) {
	srv := fakeopenai.New(t, turns([]snippet{escapes}))
	dir := t.TempDir()
	r := run(t, dir, env(dir, srv.BaseURL()), escapes.name+"\nprobe\n", example, "--chat", "--sandbox-timeout", "2s")
	requireEndedAsARun(t, r, cli.ExitOK, cli.ExitSnippetFailed)
	requireNoTerminalControls(t, r.stdout+r.stderr)
	require.Contains(t, r.stdout, `Uncaught N\x1b[31m: ERR\x1b[2J\u202e`)
}

// loom run shows a model's answer and a function's error with their
// terminal controls as text.
func TestLoomRunShowsTerminalEscapesAsText(t *testing.T) {
	model := twoSnippets([]snippet{escapes})
	srv := fakeopenai.New(t, func(req fakeopenai.Request) fakeopenai.Reply {
		rep := model(req)
		if rep.Text != "" {
			rep.Text += "\n\x1b[2J\x1b]52;c;cm0gLXJmIH4=\x07"
		}
		return rep
	})
	t.Run("answer", func(t *testing.T) {
		dir := t.TempDir()
		file := projectFile(t, dir, coderYAML)
		r := run(t, dir, env(dir, srv.BaseURL()), "", loom, "run", file, "-i", escapes.name, "--db", filepath.Join(dir, "cp.db"))
		requireEndedAsARun(t, r, exitOK)
		requireNoTerminalControls(t, r.stdout+r.stderr)
	})
	t.Run("function error", func(t *testing.T) {
		dir := t.TempDir()
		code, _ := json.Marshal(escapes.code)
		file := projectFile(t, dir, strings.Replace(functionYAML, "CODE", string(code), 1))
		r := run(t, dir, env(dir, srv.BaseURL()), "", loom, "run", file, "-i", "{}", "--db", filepath.Join(dir, "cp.db"))
		requireEndedAsARun(t, r, exitFailed)
		requireNoTerminalControls(t, r.stdout+r.stderr)
		require.Contains(t, r.stderr, `ERR\x1b[2J`)
	})
}
