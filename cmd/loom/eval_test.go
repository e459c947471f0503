package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/loomwork/loom/evals"
	"github.com/loomwork/loom/internal/testkit"
	"github.com/loomwork/loom/model"
	"github.com/loomwork/loom/observe/store"
	"github.com/loomwork/loom/sandbox"
)

// The test binary is also the isolated sandbox's worker, for the child
// processes of TestEvalSignal, which run loom's main on the default sandbox.
func init() { sandbox.ServeWorkerIfChild() }

// handwritten is the evals package's own HumanEval-format test set.
const handwritten = "../../evals/testdata/handwritten.jsonl"

// evalServer is an OpenAI Chat Completions endpoint that answers each
// HumanEval-format prompt with the reference solution of its problem,
// except for the problems in wrong, answered with the text given.
type evalServer struct {
	mu   sync.Mutex
	reqs []map[string]any
	auth []string
}

func newEvalServer(t *testing.T, wrong map[string]string) *evalServer {
	t.Helper()
	raw, err := os.ReadFile("../../evals/testdata/reference.json")
	require.NoError(t, err)
	var ref map[string]string
	require.NoError(t, json.Unmarshal(raw, &ref))
	f, err := os.Open(handwritten)
	require.NoError(t, err)
	defer f.Close()
	tasks, err := evals.ReadHumanEval(f)
	require.NoError(t, err)
	probs, err := evals.TranslateAll(tasks)
	require.NoError(t, err)

	s := &evalServer{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body map[string]any
		if r.URL.Path != "/v1/chat/completions" || json.NewDecoder(r.Body).Decode(&body) != nil {
			http.Error(w, "bad request", http.StatusBadRequest)
			return
		}
		s.mu.Lock()
		s.reqs = append(s.reqs, body)
		s.auth = append(s.auth, r.Header.Get("Authorization"))
		s.mu.Unlock()
		msgs, _ := body["messages"].([]any)
		last, _ := msgs[len(msgs)-1].(map[string]any)
		prompt := fmt.Sprint(last["content"])
		answer := "I do not know this one."
		for _, p := range probs {
			if strings.Contains(prompt, "function "+p.EntryPoint+"(") {
				answer = "```javascript\n" + ref[p.ID] + "\n```"
				if text, ok := wrong[p.ID]; ok {
					answer = text
				}
			}
		}
		w.Header().Set("Content-Type", "text/event-stream")
		chunk := func(choices []any, usage any) {
			b, _ := json.Marshal(map[string]any{"id": "c", "object": "chat.completion.chunk", "created": 0, "model": "gpt-test", "choices": choices, "usage": usage})
			fmt.Fprintf(w, "data: %s\n\n", b)
		}
		chunk([]any{map[string]any{"index": 0, "delta": map[string]any{"role": "assistant", "content": answer}, "finish_reason": nil}}, nil)
		chunk([]any{map[string]any{"index": 0, "delta": map[string]any{}, "finish_reason": "stop"}}, nil)
		chunk([]any{}, map[string]any{"prompt_tokens": 120, "completion_tokens": 30, "total_tokens": 150})
		fmt.Fprint(w, "data: [DONE]\n\n")
	}))
	t.Cleanup(srv.Close)
	t.Setenv("OPENAI_BASE_URL", srv.URL+"/v1")
	t.Setenv("OPENAI_API_KEY", "sk-test-0123456789abcdef")
	return s
}

func runLoom(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errs bytes.Buffer
	code := run(context.Background(), args, &out, &errs)
	return code, out.String(), errs.String()
}

func TestEvalEndToEnd(t *testing.T) {
	srv := newEvalServer(t, map[string]string{
		"LoomEval/3": "Escape each quote with a backslash.",                            // no code
		"LoomEval/4": "```javascript\nfunction isEven(n) { return n % 2 === 1; }\n```", // wrong
	})
	t.Setenv("LOOM_TRACE_DB", filepath.Join(t.TempDir(), "traces.db"))
	out := filepath.Join(t.TempDir(), "report.json")
	code, stdout, stderr := runLoom(t, "eval", "humaneval", "--humaneval", handwritten, "--model", "openai:gpt-test",
		"--sandbox", "inprocess", "--trusted-code", "--concurrency", "3", "--temperature", "0.8", "--json", "--out", out)
	require.Equal(t, 0, code, stderr)

	var rep evals.Report
	require.NoError(t, json.Unmarshal([]byte(stdout), &rep))
	fromFile, err := evals.ReadReport(out)
	require.NoError(t, err)
	require.Equal(t, rep.Results, fromFile.Results)

	require.Equal(t, evals.ReportFormat, rep.Format)
	require.Equal(t, "humaneval-js", rep.Dataset)
	require.Equal(t, "openai:gpt-test", rep.Model)
	require.Equal(t, "ai", rep.Solver)
	require.Equal(t, 25, rep.Problems)
	require.InDelta(t, 23.0/25, rep.PassAt[1], 1e-12)
	require.Equal(t, map[evals.Class]int{evals.Passed: 23, evals.NoCode: 1, evals.Assertion: 1}, rep.Failures)
	require.Equal(t, model.Usage{InputTokens: 25 * 120, OutputTokens: 25 * 30}, rep.Usage)
	require.Zero(t, rep.ErrorRate)
	byID := map[string]evals.Result{}
	for _, r := range rep.Results {
		byID[r.ID] = r
	}
	require.Equal(t, evals.NoCode, byID["LoomEval/3"].Samples[0].Class)
	require.Contains(t, byID["LoomEval/4"].Samples[0].Message, "expected true, got false")

	// the requests: one per problem, to the model asked for, with the key
	// and the JavaScript stub
	require.Len(t, srv.reqs, 25)
	for i, body := range srv.reqs {
		require.Equal(t, "gpt-test", body["model"])
		require.Equal(t, true, body["stream"])
		require.Equal(t, 0.8, body["temperature"])
		require.Equal(t, "Bearer sk-test-0123456789abcdef", srv.auth[i])
	}
	require.Contains(t, fmt.Sprint(srv.reqs[0]["messages"]), "```javascript\n/**")

	// the run is in the trace store, as loom observe lists it
	st, err := store.Open(context.Background(), store.Config{Path: os.Getenv("LOOM_TRACE_DB")})
	require.NoError(t, err)
	defer st.Close()
	page, err := st.Traces(context.Background(), store.Query{})
	require.NoError(t, err)
	var evalTrace *store.TraceSummary
	for i, tr := range page.Traces {
		if tr.RootName == "eval humaneval-js" {
			evalTrace = &page.Traces[i]
		}
	}
	require.NotNil(t, evalTrace, "no eval trace among %d", len(page.Traces))
	require.Equal(t, "solver", evalTrace.Agent, "the eval trace: %+v", *evalTrace)
	require.EqualValues(t, 2, evalTrace.Errors, "the two failed samples")
	require.Equal(t, store.StatusEval, evalTrace.Status, "listed as an eval, not as a run of its solver")
	require.NotNil(t, evalTrace.Eval)
	require.Equal(t, "humaneval-js", evalTrace.Eval.Dataset)
	require.EqualValues(t, 25, evalTrace.Eval.Samples)
	require.EqualValues(t, 23, evalTrace.Eval.Passed, "all but the two failed samples")
	require.EqualValues(t, 25, evalTrace.ModelCalls)
	require.Greater(t, evalTrace.Spans, int64(2*25), "the root, a span per sample and the solver's runs beneath")
	require.EqualValues(t, 25*150, evalTrace.TotalTokens)

	// the table
	code, stdout, stderr = runLoom(t, "eval", "--humaneval", handwritten, "--model", "openai:gpt-test",
		"--sandbox", "inprocess", "--trusted-code", "--problems", "LoomEval/3,/^LoomEval/1[0-2]$/", "--no-trace")
	require.Equal(t, 0, code, stderr)
	require.Contains(t, stdout, "LoomEval/3               0/1    no_code 1")
	require.Contains(t, stdout, "humaneval-js: 4 problems × 1 samples, model openai:gpt-test, solver ai")
	require.Contains(t, stdout, "pass@1      75.0%")
	require.NotContains(t, stdout, "\r", "no progress bar when stdout is not a terminal")
}

func TestEvalDiff(t *testing.T) {
	newEvalServer(t, map[string]string{"LoomEval/1": "no code"})
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.json"), filepath.Join(dir, "b.json")
	common := []string{"eval", "--humaneval", handwritten, "--model", "openai:gpt-test", "--sandbox", "inprocess", "--trusted-code", "--no-trace", "--problems", "LoomEval/[0-2]"}
	code, _, stderr := runLoom(t, append(common, "--out", a)...)
	require.Equal(t, 0, code, stderr)

	newEvalServer(t, map[string]string{"LoomEval/2": "no code"})
	code, _, stderr = runLoom(t, append(common, "--out", b)...)
	require.Equal(t, 0, code, stderr)

	code, stdout, _ := runLoom(t, "eval", "diff", a, b)
	require.Equal(t, 1, code, "a regression exits 1")
	require.Contains(t, stdout, "fixed      LoomEval/1             0% (no_code) → 100%")
	require.Contains(t, stdout, "regressed  LoomEval/2             100% → 0% (no_code)")
	require.Contains(t, stdout, "3 problems: 1 fixed, 1 same, 1 regressed")

	code, _, _ = runLoom(t, "eval", "diff", b, b)
	require.Equal(t, 0, code)
	code, _, stderr = runLoom(t, "eval", "diff", a, filepath.Join(dir, "missing.json"))
	require.Equal(t, 2, code)
	require.Contains(t, stderr, "reading the report")
	code, _, _ = runLoom(t, "eval", "diff", a)
	require.Equal(t, 2, code)
}

func TestEvalLoomTasks(t *testing.T) {
	// the coder's model answers "21" to everything: arith/gcd passes,
	// the others are wrong answers, and the run itself succeeds.
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprint(w, `data: {"id":"c","object":"chat.completion.chunk","created":0,"model":"m","choices":[{"index":0,"delta":{"role":"assistant","content":"21"},"finish_reason":"stop"}]}`+"\n\ndata: [DONE]\n\n")
	}))
	defer srv.Close()
	t.Setenv("OPENAI_BASE_URL", srv.URL+"/v1")
	t.Setenv("OPENAI_API_KEY", "sk-test-0123456789abcdef")
	code, stdout, stderr := runLoom(t, "eval", "loom-tasks", "--model", "openai:m", "--sandbox", "inprocess", "--trusted-code", "--no-trace", "--limit", "4", "--json")
	require.Equal(t, 0, code, stderr)
	var rep evals.Report
	require.NoError(t, json.Unmarshal([]byte(stdout), &rep))
	require.Equal(t, "loom-tasks", rep.Dataset)
	require.Equal(t, "coder", rep.Solver)
	require.Len(t, rep.Results, 4)
	require.Equal(t, 1, rep.Results[2].Passed, "arith/gcd is 21")
	require.Equal(t, evals.WrongAnswer, rep.Results[0].Samples[0].Class)
}

func TestEvalExitCodes(t *testing.T) {
	t.Setenv(evals.HumanEvalEnv, "")
	t.Setenv("OPENAI_API_KEY", "sk-test-0123456789abcdef")
	t.Setenv("OPENAI_BASE_URL", "http://127.0.0.1:1/v1")
	base := []string{"eval", "--sandbox", "inprocess", "--trusted-code", "--no-trace", "--model", "openai:m"}
	tests := []struct {
		name string
		args []string
		code int
		text string
	}{
		{"help", []string{"eval", "--help"}, 0, "Exit status:"},
		{"unknown data set", []string{"eval", "mbpp"}, 2, `unknown data set "mbpp"`},
		{"bad flag", []string{"eval", "--sampels", "2"}, 2, "flag provided but not defined: -sampels"},
		{"negative samples", []string{"eval", "--samples", "-1"}, 2, "--samples -1: use 0 for the default or a positive number"},
		{"negative concurrency", []string{"eval", "--concurrency", "-3"}, 2, "--concurrency -3: use 0 for the default"},
		{"bad temperature", []string{"eval", "--temperature", "3"}, 2, "--temperature 3: use a number from 0 to 2"},
		{"negative temperature", []string{"eval", "--temperature", "-1"}, 2, "--temperature -1: use a number from 0 to 2"},
		{"bad timeout", []string{"eval", "--timeout", "-1s"}, 2, "--timeout -1s: use 0 for the default or a positive duration"},
		{"bad sandbox timeout", []string{"eval", "--sandbox-timeout", "-1s"}, 2, "--sandbox-timeout -1s: use 0 for the default or a positive duration"},
		{"bad solver", []string{"eval", "--solver", "human"}, 2, `--solver "human": use ai or coder`},
		{"untrusted inprocess", []string{"eval", "--sandbox", "inprocess"}, 2, "--trusted-code"},
		{"no humaneval", append(base[:1:1], "--sandbox", "inprocess", "--trusted-code", "--humaneval", "/nonexistent/HumanEval.jsonl.gz"), 2, "no HumanEval file"},
		{"unknown problem", append(base, "--humaneval", handwritten, "--problems", "HumanEval/0"), 2, `no problem has the id "HumanEval/0"`},
		{"bad regexp", append(base, "--humaneval", handwritten, "--problems", "/(/"), 2, "not a regular expression"},
		{"nothing selected", append(base, "--humaneval", handwritten, "--problems", "Other/*"), 2, "no problem selected"},
		{"unknown provider", append(base[:len(base)-2:len(base)-2], "--humaneval", handwritten, "--model", "nosuch:m"), 2, "--model nosuch:m"},
		{"provider down", append(base, "--humaneval", handwritten, "--limit", "2"), 1, "every sample ended in an error"},
		{"extra argument", []string{"eval", "humaneval", "--limit", "1", "extra"}, 2, `unexpected argument "extra"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, stdout, stderr := runLoom(t, tc.args...)
			require.Equal(t, tc.code, code, stdout+stderr)
			require.Contains(t, stdout+stderr, tc.text)
		})
	}
}

func TestSelectProblems(t *testing.T) {
	ids := []string{"HumanEval/0", "HumanEval/1", "HumanEval/10", "HumanEval/11", "HumanEval/2"}
	tests := []struct {
		spec  string
		limit int
		want  []string
	}{
		{"", 0, ids},
		{"", 2, ids[:2]},
		{"HumanEval/1*", 0, []string{"HumanEval/1", "HumanEval/10", "HumanEval/11"}},
		{"HumanEval/2, /^HumanEval/1[01]$/", 0, []string{"HumanEval/10", "HumanEval/11", "HumanEval/2"}},
		{"HumanEval/1?", 1, []string{"HumanEval/10"}},
		{"2,10", 0, []string{"HumanEval/10", "HumanEval/2"}},
	}
	for _, tc := range tests {
		keep, err := selectProblems(ids, tc.spec, tc.limit)
		require.NoError(t, err)
		var got []string
		for _, id := range ids {
			if keep[id] {
				got = append(got, id)
			}
		}
		require.Equal(t, tc.want, got, tc.spec)
	}
	_, err := selectProblems(ids, "HumanEval/[", 0)
	require.ErrorContains(t, err, "not a glob pattern")
}

func TestEvalTimeout(t *testing.T) {
	done := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select { // a provider that never answers
		case <-r.Context().Done():
		case <-done:
		}
	}))
	defer srv.Close()
	defer close(done) // before Close, which waits for the handlers
	t.Setenv("OPENAI_BASE_URL", srv.URL+"/v1")
	t.Setenv("OPENAI_API_KEY", "sk-test-0123456789abcdef")
	code, stdout, stderr := runLoom(t, "eval", "--humaneval", handwritten, "--model", "openai:m", "--sandbox", "inprocess",
		"--trusted-code", "--no-trace", "--limit", "1", "--timeout", "200ms", "--json")
	require.Equal(t, 1, code, stdout+stderr)
	require.Contains(t, stderr, "every sample ended in an error")
	var rep evals.Report
	require.NoError(t, json.Unmarshal([]byte(stdout), &rep))
	require.Equal(t, evals.SolverError, rep.Results[0].Samples[0].Class)
	require.Equal(t, 1.0, rep.ErrorRate)
}

// --sandbox-timeout is the time limit of each sample's sandbox run: an
// answer that loops ends as class timeout at that limit, well inside the
// solver's --timeout, which the sandbox's default (5s) would pass, ending
// the sample as a solver error instead.
func TestEvalSandboxTimeout(t *testing.T) {
	newEvalServer(t, map[string]string{"LoomEval/4": "```javascript\nfunction isEven(n) { for (;;) {} }\n```"})
	for _, kind := range []string{"isolated", "inprocess"} {
		t.Run(kind, func(t *testing.T) {
			code, stdout, stderr := runLoom(t, "eval", "--humaneval", handwritten, "--model", "openai:gpt-test", "--sandbox", kind,
				"--trusted-code", "--no-trace", "--problems", "LoomEval/4", "--sandbox-timeout", "300ms", "--timeout", "4s", "--json")
			require.Equal(t, 0, code, stdout+stderr)
			var rep evals.Report
			require.NoError(t, json.Unmarshal([]byte(stdout), &rep))
			require.Len(t, rep.Results, 1)
			require.Equal(t, evals.Timeout, rep.Results[0].Samples[0].Class, "%+v", rep.Results[0].Samples[0])
		})
	}
}

// TestEvalSignal stops a child loom eval (on the isolated sandbox, the
// default) with SIGINT while its third sample waits for the model: it exits
// 130 and --out holds the two samples that finished.
func TestEvalSignal(t *testing.T) {
	raw, err := os.ReadFile("../../evals/testdata/reference.json")
	require.NoError(t, err)
	var ref map[string]string
	require.NoError(t, json.Unmarshal(raw, &ref))
	answers := []string{ref["LoomEval/0"], ref["LoomEval/1"]}
	var mu sync.Mutex
	requests := 0
	done := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		i := requests
		requests++
		mu.Unlock()
		if i >= len(answers) {
			select { // the model is slow: the signal comes first
			case <-r.Context().Done():
			case <-done:
			}
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		b, _ := json.Marshal(map[string]any{"id": "c", "object": "chat.completion.chunk", "created": 0, "model": "m",
			"choices": []any{map[string]any{"index": 0, "delta": map[string]any{"role": "assistant", "content": "```js\n" + answers[i] + "\n```"}, "finish_reason": "stop"}}})
		fmt.Fprintf(w, "data: %s\n\ndata: [DONE]\n\n", b)
	}))
	defer srv.Close()
	defer close(done)

	out := filepath.Join(t.TempDir(), "partial.json")
	cmd := exec.Command(os.Args[0], "eval", "--humaneval", handwritten, "--model", "openai:m", "--concurrency", "1", "--no-trace", "--out", out)
	cmd.Env = append(os.Environ(), childEnv+"=1", "OPENAI_BASE_URL="+srv.URL+"/v1", "OPENAI_API_KEY=sk-test-0123456789abcdef")
	var stdout, stderr testkit.SyncBuffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	require.NoError(t, cmd.Start())
	require.Eventually(t, func() bool { mu.Lock(); defer mu.Unlock(); return requests > len(answers) },
		60*time.Second, 10*time.Millisecond, "the third request never came; stderr: %s", stderr.String())
	require.NoError(t, cmd.Process.Signal(syscall.SIGINT))
	waited := make(chan error, 1)
	go func() { waited <- cmd.Wait() }()
	select {
	case <-waited:
	case <-time.After(60 * time.Second):
		_ = cmd.Process.Kill()
		<-waited
		t.Fatal("loom eval did not stop within 60s of SIGINT")
	}
	require.Equal(t, 130, cmd.ProcessState.ExitCode(), "stderr: %s", stderr.String())
	require.Contains(t, stderr.String(), "loom eval: interrupted by SIGINT (Ctrl-C); "+out+" holds the samples that finished")

	rep, err := evals.ReadReport(out)
	require.NoError(t, err)
	require.Len(t, rep.Results, 2)
	require.Equal(t, 1.0, rep.PassAt[1])
	require.Equal(t, "LoomEval/1", rep.Results[1].ID)
}
