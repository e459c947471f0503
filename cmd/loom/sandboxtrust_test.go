package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loomwork/loom/internal/cli"
	"github.com/stretchr/testify/require"
)

// inProcessYAML runs a function in the in-process sandbox, marked trusted
// by the file.
const inProcessYAML = `version: loom/v1
entry: add
agents:
  add:
    type: function
    code: "input.a + input.b"
    sandbox: {kind: in_process, trusted: true}
`

// Every entry point of the loom command refuses to run code in process
// unless the user says it is trusted, in a child process as a user runs
// it; with consent it runs.
func TestInProcessRefusedWithoutTrust(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", "sk-test-0123456789abcdef")
	dir := t.TempDir()
	trusted := filepath.Join(dir, "trusted.yaml")
	require.NoError(t, os.WriteFile(trusted, []byte(inProcessYAML), 0o644))
	untrusted := filepath.Join(dir, "untrusted.yaml")
	require.NoError(t, os.WriteFile(untrusted, []byte(strings.Replace(inProcessYAML, ", trusted: true", "", 1)), 0o644))
	db := filepath.Join(dir, "cp.db")
	const consent = "pass --trusted-code to accept that"
	tests := []struct {
		name string
		args []string
		want string // in stderr
	}{
		{"run, file not trusted", []string{"run", untrusted, "-i", `{"a":2,"b":3}`, "--db", db, "--trusted-code"}, "this sandbox does not say trusted: true"},
		{"run, no flag", []string{"run", trusted, "-i", `{"a":2,"b":3}`, "--db", db}, consent},
		{"serve, no flag", []string{"serve", trusted, "--port", "0", "--db", db}, consent},
		{"serve, file not trusted", []string{"serve", untrusted, "--port", "0", "--db", db, "--trusted-code"}, "this sandbox does not say trusted: true"},
		{"mcp serve FILE, no flag", []string{"mcp", "serve", trusted, "--db", db}, consent},
		{"validate, file not trusted", []string{"validate", untrusted}, "this sandbox does not say trusted: true"},
		{"mcp serve --sandbox inprocess", []string{"mcp", "serve", "--sandbox", "inprocess"}, "pass --trusted-code to accept that"},
		{"eval --sandbox inprocess", []string{"eval", "--sandbox", "inprocess", "--problems", filepath.Join(dir, "none.jsonl")}, "pass --trusted-code to accept that"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, stdout, stderr := loomProcess(t, tc.args...)
			require.Equal(t, exitInvalid, code, "stdout: %s\nstderr: %s", stdout, stderr)
			require.Contains(t, stderr, tc.want)
			require.Contains(t, stderr, "trusted", "the error says how to consent")
		})
	}
	t.Run("run, trusted file and flag", func(t *testing.T) {
		code, stdout, stderr := loomProcess(t, "run", trusted, "-i", `{"a":2,"b":3}`, "--db", db, "--trusted-code")
		require.Equal(t, exitOK, code, stderr)
		require.Contains(t, stdout, "5")
	})
	t.Run("run, isolated default needs no flag", func(t *testing.T) {
		plain := filepath.Join(dir, "plain.yaml")
		require.NoError(t, os.WriteFile(plain, []byte(strings.Replace(inProcessYAML, "    sandbox: {kind: in_process, trusted: true}\n", "", 1)), 0o644))
		code, stdout, stderr := loomProcess(t, "run", plain, "-i", `{"a":2,"b":3}`, "--db", db)
		require.Equal(t, exitOK, code, stderr)
		require.Contains(t, stdout, "5")
	})
}

// A model's hostile snippets, run through the real command with the
// default sandbox, are contained: the command ends as a run whose only
// snippet failed does (the exit table's 4), the model is told what
// happened, and the answer comes out.
func TestHostileSnippetContainedByDefault(t *testing.T) {
	snippets := []struct{ name, code, kind string }{
		{"endless loop", "for (;;) {}", "timeout"},
		{"memory bomb", "const a = []; for (;;) a.push(new Array(1e6).fill(1));", ""}, // memory, or the time limit first under -race
		{"deep recursion", "function f(n) { return f(n + 1) + 1; } f(0)", "stack"},
		{"proxy chain", "let p = {}; for (let i = 0; i < 1e6; i++) p = new Proxy(p, {}); String(p.x)", ""},
	}
	for _, s := range snippets {
		t.Run(s.name, func(t *testing.T) {
			fakeChat(t, func(body chatBody, chunk func(delta, finish any)) {
				last := body.Messages[len(body.Messages)-1]
				if last.Role == "tool" {
					chunk(map[string]any{"role": "assistant", "content": "contained: " + fmt.Sprint(last.Content)}, nil)
					chunk(map[string]any{}, "stop")
					return
				}
				args, _ := json.Marshal(map[string]string{"code": s.code})
				chunk(map[string]any{"role": "assistant", "tool_calls": []any{map[string]any{"index": 0, "id": "call_1", "type": "function",
					"function": map[string]any{"name": "evaluateJs", "arguments": string(args)}}}}, nil)
				chunk(map[string]any{}, "tool_calls")
			})
			file := writeFile(t, "loom.yaml", `version: loom/v1
model: openai:gpt-test
entry: coder
agents:
  coder:
    type: code_execution
    max_retries: 0
    sandbox: {timeout: 2s, memory_mb: 64}
`)
			code, stdout, stderr := loomProcess(t, "run", file, "-i", "attack", "--db", filepath.Join(t.TempDir(), "cp.db"))
			require.Equal(t, cli.ExitSnippetFailed, code, "the command ends as a run whose snippet failed, not killed; stderr: %s", stderr)
			require.Contains(t, stderr, "loom run: no computed answer: the last snippet failed in the sandbox")
			require.NotContains(t, stderr, "goroutine ", "no Go crash")
			require.NotContains(t, stderr, "fatal error")
			require.Contains(t, stdout, `contained: {"error"`, "the model was told the snippet failed")
			if s.kind != "" {
				require.Contains(t, strings.ToLower(stdout+stderr), s.kind, "the error names what happened")
			}
		})
	}
}
