package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/loomwork/loom/examples/internal/exampletest"
	"github.com/loomwork/loom/examples/internal/fakeopenai"
	"github.com/loomwork/loom/internal/cli"
	"github.com/loomwork/loom/model/providers"
	"github.com/stretchr/testify/require"
)

var bin string

func TestMain(m *testing.M) { os.Exit(exampletest.Main(m, &bin)) }

var coder = fakeopenai.Coder

func TestOneShotFactorial(t *testing.T) {
	tests := []struct {
		name  string
		stdin string
		args  []string
	}{
		{"input flag", "", []string{"-i", "Calculate 15!"}},
		{"long input flag", "", []string{"--input", "Calculate 15!"}},
		{"argument", "", []string{"Calculate 15!"}},
		{"piped stdin", "  Calculate 15!\n", nil},
		{"in-process sandbox", "", []string{"--sandbox", "inprocess", "--trusted-code", "-i", "Calculate 15!"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			srv := fakeopenai.New(t, coder)
			res := exampletest.Run(t, bin, exampletest.OpenAIEnv(srv.BaseURL()), tc.stdin, tc.args...)
			require.Equal(t, 0, res.Code, "stderr: %s", res.Stderr)
			require.Contains(t, res.Stdout, "[evaluateJs] running:\n    let f = 1;\n")
			require.Contains(t, res.Stdout, "[evaluateJs] result: 1307674368000\n")
			require.True(t, strings.HasSuffix(res.Stdout, "15! = 1307674368000\n"), res.Stdout)
			reqs := srv.Requests()
			require.Len(t, reqs, 2)
			require.Equal(t, "Calculate 15!", reqs[0].Last().Content, "the question arrives trimmed")
			require.Equal(t, []string{"evaluateJs"}, reqs[0].Tools)
			require.Equal(t, true, reqs[0].Body["stream"])
		})
	}
}

func TestChatRemembersTheFirstTurn(t *testing.T) {
	srv := fakeopenai.New(t, coder)
	res := exampletest.Run(t, bin, exampletest.OpenAIEnv(srv.BaseURL()), "Calculate 15!\n/help\nHow many questions did I ask?\n", "--chat")
	require.Equal(t, 0, res.Code, "stderr: %s", res.Stderr)
	require.Contains(t, res.Stdout, "15! = 1307674368000\n")
	require.Contains(t, res.Stdout, "/exit   leave")
	require.True(t, strings.HasSuffix(res.Stdout, "You asked me 1 questions before this one.\n"), res.Stdout)

	reqs := srv.Requests()
	require.Len(t, reqs, 3)
	var roles []string
	for _, m := range reqs[2].Messages {
		roles = append(roles, m.Role)
	}
	require.Equal(t, []string{"system", "user", "assistant", "tool", "assistant", "user"}, roles, "the first turn comes back as real messages")
	require.NotContains(t, reqs[2].Messages[0].Content, "Calculate 15!", "never in the system prompt")
	require.Equal(t, "Calculate 15!", reqs[2].Messages[1].Content)
	require.Equal(t, "evaluateJs", reqs[2].Messages[2].ToolCalls[0].Name)
	require.Contains(t, reqs[2].Messages[3].Content, "1307674368000")
	require.Equal(t, "15! = 1307674368000", reqs[2].Messages[4].Content)
}

func TestInfiniteLoopEndsInAnAnswer(t *testing.T) {
	for _, sandbox := range []string{"isolated", "inprocess"} {
		t.Run(sandbox, func(t *testing.T) {
			srv := fakeopenai.New(t, coder)
			res := exampletest.Run(t, bin, exampletest.OpenAIEnv(srv.BaseURL()), "", "--sandbox", sandbox, "--trusted-code", "--sandbox-timeout", "1s", "-i", "loop forever")
			require.Equal(t, cli.ExitSnippetFailed, res.Code, "no computed answer: stderr: %s", res.Stderr)
			require.Contains(t, res.Stderr, "no computed answer: the last snippet failed")
			require.NotContains(t, res.Stdout, "Find the cause", "the correction request to the model is not shown to the user")
			require.Equal(t, 1, strings.Count(res.Stdout, "[evaluateJs] error:"), "the failed snippet's error is shown once: %s", res.Stdout)
			require.Contains(t, res.Stdout, "The code could not finish: ")
			require.Contains(t, strings.ToLower(res.Stdout), "timeout")
			require.Less(t, res.Elapsed, 1*time.Second+15*time.Second, "ends within the timeout plus a margin")
		})
	}
}

func TestCutAnswerExitsNonZero(t *testing.T) {
	srv := fakeopenai.New(t, coder)
	res := exampletest.Run(t, bin, exampletest.OpenAIEnv(srv.BaseURL()), "", "-i", "write an essay")
	require.Equal(t, cli.ExitTruncated, res.Code, "stderr: %s", res.Stderr)
	require.Contains(t, res.Stdout, "Once upon a time, in a land far")
	require.Contains(t, res.Stderr, "cut at the model's output token limit")
	require.Contains(t, res.Stderr, "--allow-truncated")

	res = exampletest.Run(t, bin, exampletest.OpenAIEnv(srv.BaseURL()), "", "--allow-truncated", "-i", "write an essay")
	require.Equal(t, cli.ExitOK, res.Code, "stderr: %s", res.Stderr)

	// In a chat the cut turn is reported and sets the exit status; the
	// conversation goes on.
	res = exampletest.Run(t, bin, exampletest.OpenAIEnv(srv.BaseURL()), "write an essay\nCalculate 15!\n", "--chat")
	require.Equal(t, cli.ExitTruncated, res.Code, "stderr: %s", res.Stderr)
	require.Contains(t, res.Stderr, "cut at the model's output token limit")
	require.Contains(t, res.Stdout, "15! = 1307674368000")
}

func TestUnsupportedOptionIsAConfigurationError(t *testing.T) {
	// Anthropic's API has no temperature: the provider refuses before
	// sending anything, and that is a configuration error like any other.
	env := []string{"ANTHROPIC_API_KEY=sk-ant-test-0123456789", "ANTHROPIC_BASE_URL=http://127.0.0.1:1"}
	res := exampletest.Run(t, bin, env, "", "--model", "anthropic", "--temperature", "0.5", "-i", "Calculate 15!")
	require.Equal(t, cli.ExitUsage, res.Code, "stderr: %s", res.Stderr)
	require.Contains(t, res.Stderr, "unsupported")
}

func TestNoKeyExitsAtOnce(t *testing.T) {
	res := exampletest.Run(t, bin, nil, "", "-i", "Calculate 15!")
	require.Equal(t, 2, res.Code)
	require.Contains(t, res.Stderr, "OPENAI_API_KEY")
	require.Contains(t, res.Stderr, "--model ollama:")
	require.Contains(t, res.Stderr, "looked in, in order:", "the message names the .env.local files it looked in")
	require.Contains(t, res.Stderr, filepath.Join("workflow-code-execution", ".env.local"), "beside the example's sources")
	require.NotContains(t, res.Stderr, "pass the key as an option")
	require.Empty(t, res.Stdout)
	require.Less(t, res.Elapsed, 10*time.Second)
}

func TestBadFlags(t *testing.T) {
	tests := []struct {
		args []string
		err  string
	}{
		{[]string{"--temperature", "5", "x"}, "--temperature 5 is out of range: it must be in [0, 2]"},
		{[]string{"--top-p", "-0.1", "x"}, "--top-p -0.1 is out of range: it must be in [0, 1]"},
		{[]string{"--log-level", "LOUD", "x"}, `--log-level "LOUD"`},
		{[]string{"--sandbox", "docker", "x"}, `--sandbox "docker"`},
		{[]string{"--sandbox", "inprocess", "x"}, "it is for trusted code only; pass --trusted-code to accept that"},
		{[]string{"--model", "nosuch:model", "x"}, `unknown provider "nosuch"`},
	}
	for _, tc := range tests {
		t.Run(tc.args[0], func(t *testing.T) {
			res := exampletest.Run(t, bin, exampletest.OpenAIEnv("http://127.0.0.1:1/v1"), "", tc.args...)
			require.Equal(t, 2, res.Code)
			require.Contains(t, res.Stderr, tc.err)
		})
	}
}

func TestVersionAndHelp(t *testing.T) {
	res := exampletest.Run(t, bin, nil, "", "--version")
	require.Equal(t, 0, res.Code)
	require.True(t, strings.HasPrefix(res.Stdout, "workflow-code-execution "), res.Stdout)
	res = exampletest.Run(t, bin, nil, "", "--help")
	require.Equal(t, 0, res.Code)
	require.Contains(t, res.Stdout, "--approve")
}

func TestKeyIsNeverPrinted(t *testing.T) {
	srv := fakeopenai.New(t, coder)
	env := exampletest.OpenAIEnv(srv.BaseURL())
	key := strings.TrimPrefix(env[1], "OPENAI_API_KEY=")
	res := exampletest.Run(t, bin, env, "", "--log-level", "TRACE", "-i", "Calculate 15!")
	require.Equal(t, 0, res.Code, "stderr: %s", res.Stderr)
	require.NotContains(t, res.Stdout+res.Stderr, key)
	require.Contains(t, res.Stderr, "OPENAI_API_KEY=sk-…cdef", "a masked startup line at DEBUG")
	require.Contains(t, res.Stderr, "level=TRACE")
}

func TestDotEnvLocal(t *testing.T) {
	srv := fakeopenai.New(t, coder)
	dir := t.TempDir()
	env := exampletest.OpenAIEnv(srv.BaseURL())
	require.NoError(t, os.WriteFile(filepath.Join(dir, ".env.local"), []byte(strings.Join(env, "\n")+"\n"), 0o600))
	res := exampletest.RunIn(t, dir, bin, nil, "", "-i", "Calculate 15!")
	require.Equal(t, 0, res.Code, "stderr: %s", res.Stderr)
	require.Contains(t, res.Stdout, "1307674368000")
}

func TestApprovalDenied(t *testing.T) {
	srv := fakeopenai.New(t, coder)
	res := exampletest.Run(t, bin, exampletest.OpenAIEnv(srv.BaseURL()), "too risky\n", "--approve", "-i", "Calculate 15!")
	require.Equal(t, cli.ExitDeclined, res.Code, "stderr: %s", res.Stderr)
	require.Contains(t, res.Stdout, "Run it? [y/N]")
	require.Contains(t, res.Stdout, "[evaluateJs] error: not approved to run: too risky")
	reqs := srv.Requests()
	require.Len(t, reqs, 2)
	require.Contains(t, reqs[1].Last().Content, "not approved to run: too risky", "the coder is told why")
}

func TestApprovalGranted(t *testing.T) {
	srv := fakeopenai.New(t, coder)
	res := exampletest.Run(t, bin, exampletest.OpenAIEnv(srv.BaseURL()), "y\n", "--approve", "-i", "Calculate 15!")
	require.Equal(t, 0, res.Code, "stderr: %s", res.Stderr)
	require.Contains(t, res.Stdout, "15! = 1307674368000")
}

func TestApproveWithoutTerminal(t *testing.T) {
	res := exampletest.Run(t, bin, exampletest.OpenAIEnv("http://127.0.0.1:1/v1"), "", "--approve")
	require.Equal(t, 2, res.Code)
	require.Contains(t, res.Stderr, "no answer can be read")
}

func TestEnvExampleListsEveryProviderVariable(t *testing.T) {
	b, err := os.ReadFile(".env.local.example")
	require.NoError(t, err)
	// Each MODEL line names its provider's default model, as the registry
	// (and the README's table, checked against it) has it.
	for _, p := range providers.All() {
		if p.DefaultModel != "" {
			require.Contains(t, string(b), `MODEL="`+p.ID+":"+p.DefaultModel+`"`, "provider %s", p.ID)
		}
	}
	for _, p := range providers.All() {
		for _, v := range append(append([]string{}, p.KeyVars...), p.BaseURLVar) {
			if v != "" {
				require.Contains(t, string(b), v+"=", "provider %s", p.ID)
			}
		}
	}
}

// BenchmarkOneShot measures the wall time of one run of the binary as a
// user runs it, against a local server: start, one tool call, the answer.
func BenchmarkOneShot(b *testing.B) {
	for _, sandbox := range []string{"inprocess", "isolated"} {
		b.Run(sandbox, func(b *testing.B) {
			srv := fakeopenai.New(b, coder)
			env := exampletest.OpenAIEnv(srv.BaseURL())
			for b.Loop() {
				res := exampletest.Run(b, bin, env, "", "--sandbox", sandbox, "--trusted-code", "-i", "Calculate 15!")
				if res.Code != 0 {
					b.Fatal(res.Stderr)
				}
			}
		})
	}
}
