//go:build linux

package hostile

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loomwork/loom/examples/internal/exampletest"
	"github.com/loomwork/loom/examples/internal/fakeopenai"
	"github.com/loomwork/loom/internal/testkit"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"
)

// loom and example are the executables of cmd/loom and of the
// workflow-code-execution example, built once per test run.
var loom, example string

func TestMain(m *testing.M) {
	testkit.ServeReaperIfChild()
	var err error
	if loom, err = exampletest.Binary("../../../cmd/loom"); err == nil {
		example, err = exampletest.Binary("../../workflow-code-execution")
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	goleak.VerifyTestMain(m)
}

// env is a command's whole environment: PATH, a home, config, cache and
// trace store in dir, and the fake model server's address and key.
func env(dir, baseURL string) []string {
	return append([]string{
		"PATH=" + os.Getenv("PATH"),
		"HOME=" + dir,
		"XDG_CONFIG_HOME=" + filepath.Join(dir, "config"),
		"XDG_CACHE_HOME=" + filepath.Join(dir, "cache"),
		"LOOM_TRACE_DB=" + filepath.Join(dir, "traces.db"),
	}, exampletest.OpenAIEnv(baseURL)...)
}

// ran is a finished command run under a reaper.
type ran struct {
	testkit.Outcome
	stdout, stderr string
}

// run runs bin with args in dir under a reaper, stdin as given.
func run(t *testing.T, dir string, environ []string, stdin string, bin string, args ...string) ran {
	t.Helper()
	r := testkit.NewReaper(bin, args...)
	r.Cmd.Dir, r.Cmd.Env = dir, environ
	if stdin != "" {
		r.Cmd.Stdin = strings.NewReader(stdin)
	}
	var stdout, stderr strings.Builder
	r.Cmd.Stdout, r.Cmd.Stderr = &stdout, &stderr
	require.NoError(t, r.Start())
	out := r.Wait(t)
	return ran{out, stdout.String(), stderr.String()}
}

// requireEndedAsARun checks that a command ended on its own with one of
// codes, printed no Go crash, and left no process behind.
func requireEndedAsARun(t *testing.T, r ran, codes ...int) {
	t.Helper()
	require.Zero(t, r.Signal, "the command was killed by %v, not ended as a run does\nstdout: %s\nstderr: %s", r.Signal, r.stdout, r.stderr)
	require.Contains(t, codes, r.Code, "exit status\nstdout: %s\nstderr: %s", r.stdout, r.stderr)
	for _, s := range goRuntimeText {
		require.NotContains(t, r.stdout+r.stderr, s, "Go runtime text reached the user")
	}
	require.Empty(t, r.Leftovers, "processes outlived the command")
}

// twoSnippets plays a model that answers the question s.name with two
// evaluateJs calls, s.code then probeCode, and then reports both tool
// results as "FIRST <result>" and "SECOND <result>" lines.
func twoSnippets(cases []snippet) func(fakeopenai.Request) fakeopenai.Reply {
	byName := map[string]string{}
	for _, s := range cases {
		byName[s.name] = s.code
	}
	return func(req fakeopenai.Request) fakeopenai.Reply {
		var question string
		var results []string
		for _, m := range req.Messages {
			switch m.Role {
			case "user":
				if question == "" {
					question = m.Content
				}
			case "tool":
				results = append(results, m.Content)
			}
		}
		call := func(code string) fakeopenai.Reply {
			args, _ := json.Marshal(map[string]string{"code": code})
			return fakeopenai.Reply{ToolCalls: []fakeopenai.ToolCall{{ID: fmt.Sprintf("call_%d", len(results)), Name: "evaluateJs", Arguments: string(args)}}}
		}
		switch len(results) {
		case 0:
			code, ok := byName[strings.TrimSpace(question)]
			if !ok {
				return fakeopenai.Reply{Text: "no such case: " + question}
			}
			return call(code)
		case 1:
			return call(probeCode)
		default:
			return fakeopenai.Reply{Text: "FIRST " + oneLine(results[0]) + "\nSECOND " + oneLine(results[1])}
		}
	}
}

// oneLine puts text on one line.
func oneLine(s string) string { return strings.ReplaceAll(s, "\n", `\n`) }

// requireTold checks what the model was told of a hostile snippet (the
// tool result in text) and of the clean one after it.
func requireTold(t *testing.T, s snippet, first, second string) {
	t.Helper()
	lower := strings.ToLower(first)
	failed := strings.Contains(first, `"error"`)
	switch {
	case failed && len(s.told) > 0:
		found := false
		for _, w := range s.told {
			found = found || strings.Contains(lower, w)
		}
		require.True(t, found, "the model must be told one of %q: %s", s.told, first)
	case !failed && s.value != "":
		require.Contains(t, first, s.value, "the snippet's result")
	default:
		t.Fatalf("the snippet should have %s: %s", map[bool]string{true: "succeeded", false: "failed"}[len(s.told) == 0], first)
	}
	for _, w := range goRuntimeText {
		require.NotContains(t, first, w, "Go runtime text reached the model")
	}
	var probe struct {
		Result json.RawMessage `json:"result"`
	}
	require.NoError(t, json.Unmarshal([]byte(second), &probe), "the clean snippet's tool result: %s", second)
	require.JSONEq(t, probeResult, string(probe.Result), "the next snippet runs cleanly: %s", second)
}

// line returns the text after prefix on its line of out.
func line(t *testing.T, out, prefix string) string {
	t.Helper()
	for _, l := range strings.Split(out, "\n") {
		if i := strings.Index(l, prefix); i >= 0 {
			return strings.ReplaceAll(l[i+len(prefix):], `\n`, "\n")
		}
	}
	t.Fatalf("no line starting %q in: %s", prefix, out)
	return ""
}

// exitOK, exitFailed: loom's exit statuses of a run that answered and of
// one that failed.
const (
	exitOK     = 0
	exitFailed = 1
)

// turns plays a model in a conversation: asked a case's name, it sends
// that case's code to evaluateJs; asked "probe", probeCode; given the
// tool's result, it answers "FIRST <result>" (or "SECOND <result>" for
// the probe).
func turns(cases []snippet) func(fakeopenai.Request) fakeopenai.Reply {
	byName := map[string]string{"probe": probeCode}
	for _, s := range cases {
		byName[s.name] = s.code
	}
	return func(req fakeopenai.Request) fakeopenai.Reply {
		question, results := "", []string(nil)
		for _, m := range req.Messages {
			switch m.Role {
			case "user":
				question, results = strings.TrimSpace(m.Content), nil
			case "tool":
				results = append(results, m.Content)
			}
		}
		if len(results) > 0 {
			label := "FIRST "
			if question == "probe" {
				label = "SECOND "
			}
			return fakeopenai.Reply{Text: label + oneLine(results[len(results)-1])}
		}
		code, ok := byName[question]
		if !ok {
			return fakeopenai.Reply{Text: "no such case: " + question}
		}
		args, _ := json.Marshal(map[string]string{"code": code})
		return fakeopenai.Reply{ToolCalls: []fakeopenai.ToolCall{{ID: fmt.Sprintf("call_%d", len(req.Messages)), Name: "evaluateJs", Arguments: string(args)}}}
	}
}

// projectFile writes yaml as dir's loom.yaml and returns its path.
func projectFile(t *testing.T, dir, yaml string) string {
	t.Helper()
	file := filepath.Join(dir, "loom.yaml")
	require.NoError(t, os.WriteFile(file, []byte(yaml), 0o644))
	return file
}
