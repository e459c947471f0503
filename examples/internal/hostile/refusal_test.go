//go:build linux

package hostile

import (
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loomwork/loom/examples/internal/fakeopenai"
	"github.com/loomwork/loom/internal/cli"
	"github.com/stretchr/testify/require"
)

// nativeRecursion kills any process that runs it in process.
var nativeRecursion = snippet{name: "native recursion", code: `const o={}; o.toString=Object.prototype.toLocaleString; String(o)`, told: tooDeep}

// inProcessYAML is coderYAML with an in-process sandbox; trusted adds the
// file's consent.
func inProcessYAML(trusted bool) string {
	kind := "kind: in_process, "
	if trusted {
		kind += "trusted: true, "
	}
	return strings.Replace(coderYAML, "sandbox: {", "sandbox: {"+kind, 1)
}

// Every entry point refuses to run a model's code in process unless the
// user says it is trusted (the file's trusted: true and the program's
// --trusted-code): the command exits with the usage status before any
// model call, and the refusal names the fix. The model of each would send
// native recursion, which kills a process that runs it in process.
func TestInProcessRefusedWithoutTrust(t *testing.T) {
	srv := fakeopenai.New(t, twoSnippets([]snippet{nativeRecursion}))
	dir := t.TempDir()
	untrusted := filepath.Join(dir, "untrusted.yaml")
	require.NoError(t, os.WriteFile(untrusted, []byte(inProcessYAML(false)), 0o644))
	trusted := filepath.Join(dir, "trusted.yaml")
	require.NoError(t, os.WriteFile(trusted, []byte(inProcessYAML(true)), 0o644))
	db := filepath.Join(dir, "cp.db")
	const (
		fileFix = "add trusted: true to this sandbox"
		flagFix = "--trusted-code"
	)
	tests := []struct {
		name string
		bin  string
		args []string
		want string
	}{
		{"loom run, file not trusted", loom, []string{"run", untrusted, "-i", nativeRecursion.name, "--db", db, "--trusted-code"}, fileFix},
		{"loom run, no flag", loom, []string{"run", trusted, "-i", nativeRecursion.name, "--db", db}, flagFix},
		{"loom serve, file not trusted", loom, []string{"serve", untrusted, "--port", "0", "--db", db, "--trusted-code"}, fileFix},
		{"loom serve, no flag", loom, []string{"serve", trusted, "--port", "0", "--db", db}, flagFix},
		{"loom mcp serve FILE, file not trusted", loom, []string{"mcp", "serve", untrusted, "--db", db, "--trusted-code"}, fileFix},
		{"loom mcp serve FILE, no flag", loom, []string{"mcp", "serve", trusted, "--db", db}, flagFix},
		{"loom mcp serve --sandbox inprocess, no flag", loom, []string{"mcp", "serve", "--sandbox", "inprocess"}, flagFix},
		{"loom eval --sandbox inprocess, no flag", loom, []string{"eval", "--sandbox", "inprocess", "--solver", "coder", "--model", "openai:gpt-test"}, flagFix},
		{"example --sandbox inprocess, no flag", example, []string{"--sandbox", "inprocess", "-i", nativeRecursion.name}, flagFix},
	}
	t.Run("entry points", func(t *testing.T) {
		for _, tc := range tests {
			t.Run(tc.name, func(t *testing.T) {
				t.Parallel()
				r := run(t, dir, env(dir, srv.BaseURL()), "", tc.bin, tc.args...)
				requireEndedAsARun(t, r, cli.ExitUsage)
				require.Contains(t, r.stderr, tc.want, "the refusal names the fix")
				require.Contains(t, r.stderr, "trusted code only")
			})
		}
	})
	require.Empty(t, srv.Requests(), "no model was asked for code")
}

// The playground of loom serve refuses an edit that would run the model's
// code in process: without trusted: true in the file, and with it when
// the server was started without --trusted-code. The file stays as it
// was, and its runs stay in the isolated sandbox, which contains the
// snippet that would have killed the server.
func TestPlaygroundRefusesAnInProcessEdit(t *testing.T) {
	srv := fakeopenai.New(t, twoSnippets([]snippet{nativeRecursion}))
	dir := t.TempDir()
	file := projectFile(t, dir, coderYAML)
	s := serve(t, dir, srv.BaseURL(), file)
	for _, tc := range []struct {
		name    string
		trusted bool
		want    string
	}{
		{"file not trusted", false, "add trusted: true to this sandbox"},
		{"server without --trusted-code", true, "--trusted-code"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			body, _ := json.Marshal(map[string]string{"yaml": inProcessYAML(tc.trusted)})
			code, text := s.call(t, http.MethodPut, "/api/yaml", string(body), nil)
			require.Equal(t, http.StatusUnprocessableEntity, code, text)
			require.Contains(t, text, tc.want)
			saved, err := os.ReadFile(file)
			require.NoError(t, err)
			require.Equal(t, coderYAML, string(saved), "the file is unchanged")
		})
	}
	view := s.runAgent(t, "coder", map[string]string{"message": nativeRecursion.name})
	require.Equal(t, "done", view.Status, "error: %s", view.Error)
	var answer struct{ Message string }
	require.NoError(t, json.Unmarshal(view.Output, &answer), string(view.Output))
	requireTold(t, nativeRecursion, line(t, answer.Message, "FIRST "), line(t, answer.Message, "SECOND "))
	requireEndedAsARun(t, s.stop(t), 143)
}

// A run of a trusted in-process file that stopped for approval of a
// hostile snippet is not continued in process by loom resume without
// --trusted-code: the resume is refused before the snippet runs, and with
// the flag the user consents to it.
func TestResumeRefusesInProcessWithoutTrust(t *testing.T) {
	srv := fakeopenai.New(t, twoSnippets([]snippet{{name: "echo", code: "6*7"}}))
	dir := t.TempDir()
	file := projectFile(t, dir, strings.Replace(inProcessYAML(true), "max_retries: 2", "max_retries: 2\n    approval: ask", 1))
	db := filepath.Join(dir, "cp.db")
	stopped := run(t, dir, env(dir, srv.BaseURL()), "", loom, "run", file, "-i", "echo", "--db", db, "--trusted-code")
	requireEndedAsARun(t, stopped, cli.ExitWaiting)
	id := strings.TrimSpace(stopped.stdout)
	require.NotEmpty(t, id, "the stopped run's id: stderr %s", stopped.stderr)

	refused := run(t, dir, env(dir, srv.BaseURL()), "", loom, "resume", id, "--approve", "--db", db)
	requireEndedAsARun(t, refused, cli.ExitUsage)
	require.Contains(t, refused.stderr, "--trusted-code", "the refusal names the fix")
	require.Len(t, srv.Requests(), 1, "the approved snippet did not run: the model was not asked again")

	// With consent the snippet runs, and the run stops at the next one.
	resumed := run(t, dir, env(dir, srv.BaseURL()), "", loom, "resume", id, "--approve", "--db", db, "--trusted-code")
	requireEndedAsARun(t, resumed, cli.ExitWaiting)
	reqs := srv.Requests()
	require.Len(t, reqs, 2)
	require.Contains(t, reqs[1].Last().Content, `"result":42`)
}
