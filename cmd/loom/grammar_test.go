package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/loomwork/loom/internal/cli"
	"github.com/loomwork/loom/internal/testkit"
	"github.com/stretchr/testify/require"
)

// TestCommandsHelp: every command's help comes from 'loom help CMD' and
// 'loom CMD --help' alike, with status 0, on stdout.
func TestCommandsHelp(t *testing.T) {
	for _, cmd := range commands {
		t.Run(cmd, func(t *testing.T) {
			var out, errs bytes.Buffer
			require.Equal(t, 0, run(t.Context(), []string{"help", cmd}, &out, &errs), errs.String())
			require.Empty(t, errs.String())
			help := out.String()
			require.Contains(t, help, "Usage:")
			if cmd != "help" {
				require.Contains(t, help, "loom "+cmd, "the help is the command's, not the top-level usage")
			}
			if cmd == "version" || cmd == "help" {
				return
			}
			out.Reset()
			require.Equal(t, 0, run(t.Context(), []string{cmd, "--help"}, &out, &errs), errs.String())
			require.Equal(t, help, out.String(), "loom %s --help and loom help %s agree", cmd, cmd)
		})
	}
	var out, errs bytes.Buffer
	require.Equal(t, 0, run(t.Context(), []string{"help"}, &out, &errs))
	require.Contains(t, out.String(), cli.ExitTable, "the top-level help lists every exit status")
	require.Contains(t, out.String(), cli.DotEnvOrder)
}

// TestCommandsExitStatus is the table of what each command exits with on
// the cases that need no model: help, usage errors, unknown commands.
func TestCommandsExitStatus(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", "")
	file := writeFile(t, "loom.yaml", coderYAML)
	db := filepath.Join(t.TempDir(), "cp.db")
	tests := []struct {
		args   []string
		code   int
		stderr string // what stderr starts with or holds
	}{
		{nil, 2, "Usage:"},
		{[]string{"help"}, 0, ""},
		{[]string{"--version"}, 0, ""},
		{[]string{"version"}, 0, ""},
		{[]string{"help", "nonexistent"}, 2, `loom help: unknown command "nonexistent"`},
		{[]string{"help", "evl"}, 2, `(did you mean "eval"?)`},
		{[]string{"rnu"}, 2, `loom: unknown command "rnu" (did you mean "run"?)`},
		{[]string{"obsrve"}, 2, `(did you mean "observe"?)`},
		{[]string{"run"}, 2, "loom run: give one file"},
		{[]string{"run", file, "--timeout", "-1s"}, 2, "loom run: --timeout"},
		{[]string{"run", filepath.Join(t.TempDir(), "missing.yaml"), "-i", "hi"}, 2, "loom run: "},
		{[]string{"run", file, "-i", "hi", "--db", db}, 2, "loom run: "},
		{[]string{"resume"}, 2, "loom resume: give the id"},
		{[]string{"resume", "abc", "--approve", "--db", db}, 2, "loom resume: no stopped run"},
		{[]string{"validate"}, 2, "loom validate: "},
		{[]string{"schema", "x"}, 2, "loom schema: "},
		{[]string{"serve"}, 2, "loom serve: give one file"},
		{[]string{"serve", file, "--port", "99999"}, 2, "loom serve: --port"},
		{[]string{"observe", "x"}, 2, "loom observe: unexpected argument"},
		{[]string{"observe", "--port", "-5"}, 2, "loom observe: --port"},
		{[]string{"mcp"}, 2, "Usage: loom mcp serve"},
		{[]string{"mcp", "serve", "--sandbox", "x"}, 2, "loom mcp serve: --sandbox"},
		{[]string{"mcp", "serve", "--model", "openai:m"}, 2, "set OPENAI_API_KEY in the environment or in a .env.local file"},
		{[]string{"eval", "--samples", "-1"}, 2, "loom eval: "},
		{[]string{"eval", "diff"}, 2, "loom eval diff: give two reports"},
	}
	for _, tc := range tests {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			var out, errs bytes.Buffer
			code := run(t.Context(), tc.args, &out, &errs)
			require.Equal(t, tc.code, code, "stderr: %s", errs.String())
			require.Contains(t, errs.String(), tc.stderr)
			if tc.code == 0 {
				require.NotEmpty(t, out.String())
			}
		})
	}
}

// TestServersStopOnSignal: each server (the playground, the viewer, the
// MCP server over HTTP) stops cleanly on SIGINT with status 130 and on
// SIGTERM with 143, in a child process running loom's main.
func TestServersStopOnSignal(t *testing.T) {
	srv := fakeOpenAI(t)
	file := writeFile(t, "loom.yaml", coderYAML)
	servers := []struct {
		name  string
		args  []string
		ready *regexp.Regexp // the line saying it listens
	}{
		{"serve", []string{"serve", file, "--port", "0", "--db", filepath.Join(t.TempDir(), "cp.db")}, regexp.MustCompile(`http://127\.0\.0\.1:\d+/\?token=`)},
		{"observe", []string{"observe", "--port", "0", "--db", filepath.Join(t.TempDir(), "traces.db")}, regexp.MustCompile(`http://127\.0\.0\.1:\d+/`)},
		{"mcp serve", []string{"mcp", "serve", "--http", "127.0.0.1:0", "--model", "openai:m", "--sandbox", "inprocess", "--trusted-code"}, regexp.MustCompile(`serving MCP at http://127\.0\.0\.1:\d+/mcp`)},
	}
	for _, s := range servers {
		for _, sig := range []struct {
			sig  syscall.Signal
			code int
			name string
		}{{syscall.SIGINT, 130, "SIGINT (Ctrl-C)"}, {syscall.SIGTERM, 143, "SIGTERM"}} {
			t.Run(fmt.Sprintf("%s %d", s.name, sig.code), func(t *testing.T) {
				cmd := exec.Command(os.Args[0], s.args...)
				cmd.Env = append(os.Environ(), childEnv+"=1", "OPENAI_BASE_URL="+srv.URL+"/v1", "OPENAI_API_KEY=sk-test-0123456789abcdef")
				var out, errs testkit.SyncBuffer
				cmd.Stdout, cmd.Stderr = &out, &errs
				require.NoError(t, cmd.Start())
				require.Eventually(t, func() bool { return s.ready.MatchString(out.String() + errs.String()) },
					60*time.Second, 10*time.Millisecond, "it never listened; stderr: %s", errs.String())
				require.NoError(t, cmd.Process.Signal(sig.sig))
				done := make(chan error, 1)
				go func() { done <- cmd.Wait() }()
				select {
				case <-done:
				case <-time.After(60 * time.Second):
					_ = cmd.Process.Kill()
					<-done
					t.Fatalf("loom %s did not stop within 60s of the signal", s.name)
				}
				require.Equal(t, sig.code, cmd.ProcessState.ExitCode(), "stderr: %s", errs.String())
				require.Contains(t, errs.String(), "loom "+s.name+": interrupted by "+sig.name)
			})
		}
	}
}
