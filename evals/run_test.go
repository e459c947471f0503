package evals

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/loomwork/loom/agent"
	"github.com/loomwork/loom/codeexec"
	"github.com/loomwork/loom/model"
	"github.com/loomwork/loom/model/modeltest"
	"github.com/loomwork/loom/sandbox"
	"github.com/loomwork/loom/sandbox/jstool"
)

// newSolver returns an AI agent on a scripted model that plays answer for
// each of calls requests, given the request's last user text.
func newSolver(t *testing.T, calls int, answer func(prompt string) modeltest.Turn) (*agent.AI, *modeltest.Scripted) {
	t.Helper()
	turns := make([]modeltest.Turn, calls)
	for i := range turns {
		turns[i] = modeltest.Func(func(req model.Request) modeltest.Turn {
			last := req.Messages[len(req.Messages)-1]
			return answer(last.Text())
		})
	}
	m := modeltest.New(t, turns...)
	ai, err := agent.NewAI(agent.AIConfig{Name: "solver", Model: m})
	require.NoError(t, err)
	return ai, m
}

// newExecutor returns an in-process executor with the given options (the
// standard limits by default).
func newExecutor(t *testing.T, cfg sandbox.InProcessConfig) sandbox.Executor {
	t.Helper()
	ex, err := sandbox.NewInProcess(cfg)
	require.NoError(t, err)
	t.Cleanup(func() { _ = ex.Close() })
	return ex
}

// problemFor finds the problem whose stub the prompt carries.
func problemFor(t *testing.T, probs []Problem, prompt string) Problem {
	for _, p := range probs {
		if strings.Contains(prompt, "function "+p.EntryPoint+"(") {
			return p
		}
	}
	t.Errorf("no problem matches the prompt %q", prompt)
	return Problem{}
}

func fenced(code string) string { return "Here it is:\n\n```javascript\n" + code + "\n```\n" }

func TestReferenceSolutionsScoreOne(t *testing.T) {
	probs, ref := loadHandwritten(t)
	solver, m := newSolver(t, len(probs), func(prompt string) modeltest.Turn {
		return modeltest.Text(fenced(ref[problemFor(t, probs, prompt).ID])).WithUsage(100, 40)
	})
	var progress atomic.Int64
	rep, err := Run(context.Background(), probs, Config{
		Solver: solver, Executor: newExecutor(t, sandbox.InProcessConfig{}), Concurrency: 4, Model: "modeltest:scripted",
		Progress: func(done, total int, _ string, _ Sample) {
			require.Equal(t, len(probs), total)
			progress.Add(1)
		},
	})
	require.NoError(t, err)
	require.Equal(t, len(probs), m.Calls())
	require.EqualValues(t, len(probs), progress.Load())
	require.Equal(t, map[int]float64{1: 1}, rep.PassAt)
	require.Equal(t, map[Class]int{Passed: len(probs)}, rep.Failures)
	require.Equal(t, model.Usage{InputTokens: 100 * int64(len(probs)), OutputTokens: 40 * int64(len(probs))}, rep.Usage)
	require.Zero(t, rep.ErrorRate)
	require.Positive(t, rep.Throughput)
	require.LessOrEqual(t, rep.LatencyP50MS, rep.LatencyP95MS)
	require.Equal(t, "humaneval-js", rep.Dataset)
	require.Equal(t, "solver", rep.Solver)
	require.Zero(t, rep.Overridden)
	for i, res := range rep.Results {
		require.Equal(t, probs[i].ID, res.ID, "results keep the problems' order")
		require.Equal(t, 1, res.Passed)
		require.Equal(t, ref[res.ID], res.Samples[0].Code)
	}
	// the prompt carries the instructions and the stub
	require.Contains(t, m.Request(0).Messages[0].Text(), DefaultInstructions)

	var buf bytes.Buffer
	require.NoError(t, rep.WriteJSON(&buf))
	var back Report
	require.NoError(t, json.Unmarshal(buf.Bytes(), &back))
	require.Equal(t, rep.PassAt, back.PassAt)
	require.Equal(t, rep.Results, back.Results)
}

func TestWrongSolutionsScoreZero(t *testing.T) {
	probs, _ := loadHandwritten(t)
	p := probs[0] // sumPairs
	tests := []struct {
		name  string
		turn  modeltest.Turn
		class Class
		msg   string
	}{
		{"syntax", modeltest.Text(fenced("function sumPairs(pairs) { return pairs.reduce(( }")), Syntax, "SyntaxError"},
		{"exception", modeltest.Text(fenced("function sumPairs(pairs) { return pairs.nope.length; }")), Exception, "TypeError"},
		{"thrown value", modeltest.Text(fenced("function sumPairs(pairs) { throw 42; }")), Exception, "42"},
		{"assertion", modeltest.Text(fenced("function sumPairs(pairs) { return 0; }")), Assertion, "expected 14, got 0"},
		{"wrong name", modeltest.Text(fenced("function sum_of_pairs(pairs) { return 14; }")), Exception, "no function named sumPairs"},
		{"timeout", modeltest.Text(fenced("function sumPairs(pairs) { for (;;) {} }")), Timeout, ""},
		{"stack limit", modeltest.Text(fenced("function sumPairs(pairs) { return sumPairs(pairs) + 1; }")), SandboxLimit, ""},
		{"memory limit", modeltest.Text(fenced("function sumPairs(pairs) { return 'x'.repeat(1e9).length; }")), SandboxLimit, ""},
		{"rebinds assert", modeltest.Text(fenced("function sumPairs(pairs) { return 0; }\nassert = { deepStrictEqual() {}, ok() {} };")), Exception, "TypeError"},
		{"patches built-ins", modeltest.Text(fenced("Object.keys = () => []; Array.isArray = () => true; Object.getPrototypeOf = () => null;\nfunction sumPairs(pairs) { return 0; }")), Assertion, "expected 14, got 0"},
		{"no code", modeltest.Text("The answer is to multiply and add."), NoCode, "no code"},
		{"empty fence", modeltest.Text("```javascript\n```"), NoCode, "no code"},
		{"solver error", modeltest.Error(errors.New("provider down")), SolverError, "provider down"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			solver, _ := newSolver(t, 1, func(string) modeltest.Turn { return tc.turn })
			// a short time limit, so the infinite loop of the timeout
			// case ends soon; the other programs take milliseconds.
			ex := newExecutor(t, sandbox.InProcessConfig{Limits: sandbox.Limits{Timeout: time.Second}})
			rep, err := Run(context.Background(), []Problem{p}, Config{Solver: solver, Executor: ex})
			require.NoError(t, err)
			require.Equal(t, 0.0, rep.PassAt[1])
			s := rep.Results[0].Samples[0]
			require.Equal(t, tc.class, s.Class, s.Message)
			require.Contains(t, s.Message, tc.msg)
			if tc.class == SolverError {
				require.Equal(t, 1.0, rep.ErrorRate)
			} else {
				require.Zero(t, rep.ErrorRate)
			}
		})
	}
}

func TestSamplesAndPassAtK(t *testing.T) {
	probs, ref := loadHandwritten(t)
	probs = probs[:2]
	probs[1].Override = "a reason" // counted in the report
	var n atomic.Int64
	// per problem, the first two answers are right and the next two wrong:
	// c = 2 of n = 4 each.
	solver, _ := newSolver(t, 8, func(prompt string) modeltest.Turn {
		p := problemFor(t, probs, prompt)
		if n.Add(1)%2 == 0 {
			return modeltest.Text(fenced(ref[p.ID]))
		}
		return modeltest.Text(fenced("function " + p.EntryPoint + "() { return 'wrong'; }"))
	})
	rep, err := Run(context.Background(), probs, Config{Solver: solver, Executor: newExecutor(t, sandbox.InProcessConfig{}), Samples: 4, Concurrency: 1, K: []int{1, 2, 10}})
	require.NoError(t, err)
	require.Equal(t, 4, rep.Samples)
	for _, r := range rep.Results {
		require.Len(t, r.Samples, 4)
		require.Equal(t, 2, r.Passed)
	}
	require.InDelta(t, 0.5, rep.PassAt[1], 1e-12)
	require.InDelta(t, 5.0/6, rep.PassAt[2], 1e-12) // 1 − C(2,2)/C(4,2)
	require.NotContains(t, rep.PassAt, 10, "k above n is left out")
	require.Equal(t, 1, rep.Overridden)
}

func TestPassAtK(t *testing.T) {
	tests := []struct {
		n, c, k int
		want    float64
	}{
		{1, 1, 1, 1},
		{1, 0, 1, 0},
		{5, 0, 3, 0},
		{10, 3, 1, 0.3},
		{10, 3, 5, 1 - 21.0/252}, // 1 − C(7,5)/C(10,5)
		{4, 2, 2, 1 - 1.0/6},     // 1 − C(2,2)/C(4,2)
		{10, 8, 3, 1},            // fewer than k failures: every draw passes
		{200, 1, 100, 0.5},       // 1 − C(199,100)/C(200,100) = 100/200
		{20, 5, 10, 1 - 3003.0/184756},
	}
	for _, tc := range tests {
		got, err := PassAtK(tc.n, tc.c, tc.k)
		require.NoError(t, err)
		require.InDelta(t, tc.want, got, 1e-12, "n=%d c=%d k=%d", tc.n, tc.c, tc.k)
	}
	for _, bad := range [][3]int{{0, 0, 1}, {5, 6, 1}, {5, -1, 1}, {5, 2, 0}, {5, 2, 6}} {
		_, err := PassAtK(bad[0], bad[1], bad[2])
		require.ErrorContains(t, err, "1 ≤ k ≤ n", "%v", bad)
	}
}

func TestConfigErrors(t *testing.T) {
	probs, _ := loadHandwritten(t)
	solver, _ := newSolver(t, 0, nil)
	ex := newExecutor(t, sandbox.InProcessConfig{})
	tests := []struct {
		name  string
		probs []Problem
		cfg   Config
		want  error
		text  string
	}{
		{"no solver", probs, Config{Executor: ex}, ErrInvalidConfig, "Solver is nil"},
		{"no executor", probs, Config{Solver: solver}, ErrInvalidConfig, "Executor is nil"},
		{"negative samples", probs, Config{Solver: solver, Executor: ex, Samples: -1}, ErrInvalidConfig, "Samples is -1"},
		{"negative concurrency", probs, Config{Solver: solver, Executor: ex, Concurrency: -2}, ErrInvalidConfig, "Concurrency is -2"},
		{"k zero", probs, Config{Solver: solver, Executor: ex, K: []int{0}}, ErrInvalidConfig, "pass@0"},
		{"no problems", nil, Config{Solver: solver, Executor: ex}, ErrNoProblems, "no problems"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Run(context.Background(), tc.probs, tc.cfg)
			require.ErrorIs(t, err, tc.want)
			require.ErrorContains(t, err, tc.text)
		})
	}
}

func TestStopKeepsFinishedSamples(t *testing.T) {
	probs, ref := loadHandwritten(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var calls atomic.Int64
	solver, _ := newSolver(t, len(probs), func(prompt string) modeltest.Turn {
		if calls.Add(1) == 3 {
			cancel()
		}
		return modeltest.Text(fenced(ref[problemFor(t, probs, prompt).ID]))
	})
	rep, err := Run(ctx, probs, Config{Solver: solver, Executor: newExecutor(t, sandbox.InProcessConfig{}), Concurrency: 1})
	require.ErrorIs(t, err, context.Canceled)
	require.ErrorContains(t, err, "stopped after")
	require.NotNil(t, rep)
	require.Less(t, len(rep.Results), len(probs))
	kept := 0
	for _, r := range rep.Results {
		kept += len(r.Samples)
	}
	require.ErrorContains(t, err, fmt.Sprintf("stopped after %d of %d samples", kept, len(probs)))
	for _, r := range rep.Results {
		for _, s := range r.Samples {
			require.NotEmpty(t, s.Class)
		}
	}
}

func TestExtractCode(t *testing.T) {
	tests := []struct {
		name, out, code string
	}{
		{"js fence in message", `{"message":"x\n` + "```js\\nfunction f() {}\\n```" + `"}`, "function f() {}"},
		{"javascript fence wins over python", `"` + "```python\\nx\\n```\\n```javascript\\nlet a = 1;\\n```" + `"`, "let a = 1;"},
		{"untagged fence", `"` + "```\\nconst b = 2;\\n```" + `"`, "const b = 2;"},
		{"code field", `{"code":"function g() { return 1; }","explanation":"..."}`, "function g() { return 1; }"},
		{"export removed", `{"code":"export function h() {}\nexport default async function k() {}"}`, "function h() {}\nasync function k() {}"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, err := ExtractCode(json.RawMessage(tc.out))
			require.NoError(t, err)
			require.Equal(t, tc.code, code)
		})
	}
	for _, out := range []string{`{"message":"no code here"}`, `"` + "```python\\nprint(1)\\n```" + `"`, `{"code":"  "}`} {
		_, err := ExtractCode(json.RawMessage(out))
		require.ErrorIs(t, err, ErrNoCode, out)
	}
}

// TestCoderSolver runs HumanEval-format problems through the Coder→Sandbox
// workflow: the scripted coder tries its function in the sandbox, then
// answers with it in a fence, or (for the odd problems) only says it is
// done, when the last snippet it ran is taken.
func TestCoderSolver(t *testing.T) {
	probs, ref := loadHandwritten(t)
	probs = probs[:6]
	turns := make([]modeltest.Turn, 2*len(probs))
	for i := range turns {
		turns[i] = modeltest.Func(func(req model.Request) modeltest.Turn {
			var user string
			for _, m := range req.Messages {
				if m.Role == model.RoleUser {
					user = m.Text()
				}
			}
			p := problemFor(t, probs, user)
			if rs := req.Messages[len(req.Messages)-1].ToolResults(); len(rs) > 0 {
				require.False(t, rs[0].IsError, string(rs[0].Content))
				if strings.HasSuffix(p.ID, "1") || strings.HasSuffix(p.ID, "3") || strings.HasSuffix(p.ID, "5") {
					return modeltest.Text("Done: the function works.")
				}
				return modeltest.Text(fenced(ref[p.ID]))
			}
			args, _ := json.Marshal(map[string]string{"code": ref[p.ID] + "\n" + p.EntryPoint + ".length"})
			return modeltest.ToolCalls(modeltest.Call("call_"+p.ID, jstool.Name, string(args)))
		})
	}
	m := modeltest.New(t, turns...)
	ex := newExecutor(t, sandbox.InProcessConfig{})
	coder, err := codeexec.New(codeexec.Config{Model: m, Sandbox: ex})
	require.NoError(t, err)
	defer coder.Close()
	rep, err := Run(context.Background(), probs, Config{Solver: coder, Executor: ex})
	require.NoError(t, err)
	require.Equal(t, 1.0, rep.PassAt[1], "%+v", rep.Failures)
	require.Equal(t, "code_execution", rep.Solver)
	for i, r := range rep.Results {
		if i%2 == 1 { // the snippet it ran, with its trial call
			require.Equal(t, ref[r.ID]+"\n"+probs[i].EntryPoint+".length", r.Samples[0].Code, r.ID)
		} else {
			require.Equal(t, ref[r.ID], r.Samples[0].Code, r.ID)
		}
	}
}
