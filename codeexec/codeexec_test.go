package codeexec_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/loomwork/loom/agent"
	"github.com/loomwork/loom/codeexec"
	"github.com/loomwork/loom/compose"
	"github.com/loomwork/loom/engine"
	"github.com/loomwork/loom/internal/testkit"
	"github.com/loomwork/loom/model"
	"github.com/loomwork/loom/model/modeltest"
	"github.com/loomwork/loom/sandbox"
	"github.com/stretchr/testify/require"
)

type codeIn struct {
	Code string `json:"code" jsonschema:"description=the JavaScript to run"`
}

type codeOut struct {
	Result any `json:"result"`
}

// fakeSandbox answers from a table of snippets; unknown code fails.
type fakeSandbox struct {
	mu      sync.Mutex
	ran     []string
	results map[string]any
	errs    map[string]error
}

func (f *fakeSandbox) agent(t *testing.T) agent.Agent { return f.agentTB(t) }

func (f *fakeSandbox) agentTB(t testing.TB) agent.Agent {
	a, err := agent.NewFunc("evaluateJs", "Runs JavaScript.", func(_ context.Context, in codeIn) (codeOut, error) {
		f.mu.Lock()
		defer f.mu.Unlock()
		f.ran = append(f.ran, in.Code)
		if err, ok := f.errs[in.Code]; ok {
			return codeOut{}, err
		}
		if r, ok := f.results[in.Code]; ok {
			return codeOut{Result: r}, nil
		}
		return codeOut{}, errors.New("unexpected code " + in.Code)
	})
	require.NoError(t, err)
	return a
}

func jsCall(id, code string) model.ToolCall {
	args, _ := json.Marshal(codeIn{Code: code})
	return modeltest.Call(id, "evaluateJs", string(args))
}

// toolResult returns the tool result of request i of m.
func toolResult(t *testing.T, m *modeltest.Scripted, i int) model.ToolResult {
	t.Helper()
	msgs := m.Request(i).Messages
	last := msgs[len(msgs)-1]
	require.Equal(t, model.RoleTool, last.Role)
	rs := last.ToolResults()
	require.Len(t, rs, 1)
	return rs[0]
}

func errorText(t *testing.T, r model.ToolResult) string {
	t.Helper()
	require.True(t, r.IsError, "result %s", r.Content)
	var v struct {
		Error string `json:"error"`
	}
	require.NoError(t, json.Unmarshal(r.Content, &v))
	return v.Error
}

func TestCodeExecutionReviewerRejectsThenAccepts(t *testing.T) {
	sb := &fakeSandbox{results: map[string]any{"let f = 1n; for (let i = 2n; i <= 25n; i++) f *= i; String(f)": "15511210043330985984000000"}}
	good := "let f = 1n; for (let i = 2n; i <= 25n; i++) f *= i; String(f)"
	m := modeltest.New(t,
		modeltest.ToolCalls(jsCall("c1", "let f = 1; for (let i = 2; i <= 25; i++) f *= i; f")),
		modeltest.ToolCalls(jsCall("c2", good)),
		modeltest.Text("25! = 15511210043330985984000000"),
	)
	rev, asks := reviewer(t, compose.Review{Feedback: "25! overflows a double: use BigInt"}, compose.Review{Approved: true})
	ce, err := codeexec.New(codeexec.Config{Model: m, Tool: sb.agent(t), Reviewer: rev})
	require.NoError(t, err)
	res, err := engine.New(engine.Config{}).Invoke(t.Context(), ce, "25! = ?")
	require.NoError(t, err)
	require.Equal(t, "25! = 15511210043330985984000000", res.Text())

	require.Equal(t, []string{good}, sb.ran, "the rejected snippet never ran")
	rejected := errorText(t, toolResult(t, m, 1))
	require.Equal(t, "rejected by the reviewer: 25! overflows a double: use BigInt (revise the code and call evaluateJs again)", rejected)
	require.Contains(t, (*asks)[0], "Task: 25! = ?")
	require.Contains(t, (*asks)[0], "```js\nlet f = 1;")
	ok := toolResult(t, m, 2)
	require.False(t, ok.IsError)
	require.JSONEq(t, `{"result":"15511210043330985984000000"}`, string(ok.Content))
}

func TestCodeExecutionSandboxErrorFedBackAndCorrected(t *testing.T) {
	sb := &fakeSandbox{
		results: map[string]any{"const x = 6; x * 7": 42},
		errs:    map[string]error{"x * 7": errors.New("ReferenceError: x is not defined at <eval>:1:1")},
	}
	m := modeltest.New(t,
		modeltest.ToolCalls(jsCall("c1", "x * 7")),
		modeltest.ToolCalls(jsCall("c2", "const x = 6; x * 7")),
		modeltest.Text("The answer is 42."),
	)
	ce, err := codeexec.New(codeexec.Config{Model: m, Tool: sb.agent(t)})
	require.NoError(t, err)
	res, err := engine.New(engine.Config{}).Invoke(t.Context(), ce, "6*7 using a variable")
	require.NoError(t, err)
	require.Equal(t, "The answer is 42.", res.Text())
	require.Equal(t, []string{"x * 7", "const x = 6; x * 7"}, sb.ran)
	fb := errorText(t, toolResult(t, m, 1))
	require.Contains(t, fb, "ReferenceError: x is not defined")
	require.Contains(t, fb, "Attempt 1 failed: ")
	require.Contains(t, fb, "(3 retries left)")
}

func TestCodeExecutionLLMErrorHandler(t *testing.T) {
	sb := &fakeSandbox{errs: map[string]error{"1/": errors.New("SyntaxError: Unexpected end of input")}, results: map[string]any{"1/1": 1}}
	coderModel := modeltest.New(t,
		modeltest.ToolCalls(jsCall("c1", "1/")),
		modeltest.ToolCalls(jsCall("c2", "1/1")),
		modeltest.Text("1"),
	)
	handlerModel := modeltest.New(t, modeltest.Text("Complete the division: the divisor is missing."))
	handler := testkit.NewAI(t, agent.AIConfig{Name: "fixer", Model: handlerModel})
	ce, err := codeexec.New(codeexec.Config{Model: coderModel, Tool: sb.agent(t), ErrorHandler: handler})
	require.NoError(t, err)
	_, err = engine.New(engine.Config{}).Invoke(t.Context(), ce, "1/1")
	require.NoError(t, err)
	ask := handlerModel.Request(0).Messages[0].Text()
	require.Contains(t, ask, "This code failed:\n1/")
	require.Contains(t, ask, "Error: SyntaxError: Unexpected end of input")
	require.True(t, strings.HasSuffix(errorText(t, toolResult(t, coderModel, 1)), "\nComplete the division: the divisor is missing."))
}

func TestCodeExecutionApprovalDenied(t *testing.T) {
	sb := &fakeSandbox{}
	m := modeltest.New(t,
		modeltest.ToolCalls(jsCall("c1", "while (true) {}")),
		modeltest.Text("I was not allowed to run the code, because it never ends."),
	)
	var got codeexec.ApprovalRequest
	approver := codeexec.ApproverFunc(func(_ context.Context, req codeexec.ApprovalRequest) (codeexec.Approval, error) {
		got = req
		return codeexec.Approval{Reason: "it never ends"}, nil
	})
	ce, err := codeexec.New(codeexec.Config{Model: m, Tool: sb.agent(t), Approver: approver})
	require.NoError(t, err)
	res, err := engine.New(engine.Config{}).Invoke(t.Context(), ce, "loop")
	require.NoError(t, err)
	require.Equal(t, "I was not allowed to run the code, because it never ends.", res.Text())
	require.Empty(t, sb.ran)
	require.Equal(t, codeexec.ApprovalRequest{Code: "while (true) {}", Task: "loop", Attempt: 1}, got)
	require.Equal(t, "not approved to run: it never ends (do not run this code again: change your approach, or explain to the user why you cannot answer)", errorText(t, toolResult(t, m, 1)))
}

func TestCodeExecutionApproverErrorIsDenial(t *testing.T) {
	m := modeltest.New(t, modeltest.ToolCalls(jsCall("c1", "1")), modeltest.Text("no"))
	approver := codeexec.ApproverFunc(func(context.Context, codeexec.ApprovalRequest) (codeexec.Approval, error) {
		return codeexec.Approval{}, errors.New("terminal closed")
	})
	ce, err := codeexec.New(codeexec.Config{Model: m, Tool: (&fakeSandbox{}).agent(t), Approver: approver})
	require.NoError(t, err)
	_, err = engine.New(engine.Config{}).Invoke(t.Context(), ce, "1")
	require.NoError(t, err)
	require.Contains(t, errorText(t, toolResult(t, m, 1)), "no approval could be obtained: terminal closed")
}

func TestCodeExecutionRetryBudgetExhausted(t *testing.T) {
	broken := errors.New("RangeError: Maximum call stack size exceeded")
	sb := &fakeSandbox{errs: map[string]error{"f()": broken, "g()": broken}}
	m := modeltest.New(t,
		modeltest.ToolCalls(jsCall("c1", "f()")),
		modeltest.ToolCalls(jsCall("c2", "g()")),
	)
	ce, err := codeexec.New(codeexec.Config{Model: m, Tool: sb.agent(t), MaxRetries: 1})
	require.NoError(t, err)
	e := engine.New(engine.Config{})
	_, err = e.Invoke(t.Context(), ce, "recurse")
	require.ErrorIs(t, err, compose.ErrRetriesExhausted)
	require.ErrorIs(t, err, broken)
	var re *compose.RetriesError
	require.ErrorAs(t, err, &re)
	require.Equal(t, 2, re.Attempts)
	require.Equal(t, 1, re.Retries)
	require.True(t, strings.HasPrefix(err.Error(), "code_execution: retry budget exhausted: 2 attempts failed (1 retries allowed); last failure: "), err.Error())
	require.Equal(t, 2, m.Calls(), "the run ends at once, without another model call")
	require.Contains(t, errorText(t, toolResult(t, m, 1)), "This is the last retry")
	require.Equal(t, int64(1), e.Stats().Failed)
}

func TestCodeExecutionRejectionsSpendTheBudget(t *testing.T) {
	m := modeltest.New(t,
		modeltest.ToolCalls(jsCall("c1", "a")),
		modeltest.ToolCalls(jsCall("c2", "b")),
	)
	no := compose.Review{Feedback: "no"}
	rev, _ := reviewer(t, no, no)
	ce, err := codeexec.New(codeexec.Config{Model: m, Tool: (&fakeSandbox{}).agent(t), Reviewer: rev, MaxRetries: 1})
	require.NoError(t, err)
	_, err = engine.New(engine.Config{}).Invoke(t.Context(), ce, "x")
	require.ErrorIs(t, err, compose.ErrRetriesExhausted)
	require.ErrorIs(t, err, codeexec.ErrRejected)
}

func TestCodeExecutionSessionForwardsHistory(t *testing.T) {
	sb := &fakeSandbox{results: map[string]any{"6*7": 42}}
	m := modeltest.New(t,
		modeltest.ToolCalls(jsCall("c1", "6*7")),
		modeltest.Text("42"),
		modeltest.Text("I computed 6*7."),
	)
	ce, err := codeexec.New(codeexec.Config{Model: m, Tool: sb.agent(t)})
	require.NoError(t, err)
	s := engine.New(engine.Config{}).NewSession(ce, nil)
	_, err = s.Invoke(t.Context(), "6*7?")
	require.NoError(t, err)
	_, err = s.Invoke(t.Context(), "what did you compute?")
	require.NoError(t, err)
	msgs := m.Request(2).Messages
	roles := make([]model.Role, len(msgs))
	for i, msg := range msgs {
		roles[i] = msg.Role
	}
	require.Equal(t, []model.Role{model.RoleSystem, model.RoleUser, model.RoleAssistant, model.RoleTool, model.RoleAssistant, model.RoleUser}, roles)
	require.Equal(t, "6*7?", msgs[1].Text())
	require.Equal(t, "evaluateJs", msgs[2].ToolCalls()[0].Name)
}

func TestCodeExecutionEventsNestUnderWorkflow(t *testing.T) {
	sb := &fakeSandbox{results: map[string]any{"1+1": 2}}
	m := modeltest.New(t, modeltest.ToolCalls(jsCall("c1", "1+1")), modeltest.Text("2"))
	ce, err := codeexec.New(codeexec.Config{Model: m, Tool: sb.agent(t)})
	require.NoError(t, err)
	evs := testkit.Events(t, engine.New(engine.Config{}).Run(t.Context(), ce, "1+1"))
	require.Equal(t, []string{"code_execution", "coder", "evaluateJs"}, testkit.Starts(evs), "workflow, coder, sandbox tool")
}

func TestParseApproval(t *testing.T) {
	tests := []struct {
		answer string
		want   codeexec.Approval
	}{
		{"y\n", codeexec.Approval{Approved: true}},
		{" YES ", codeexec.Approval{Approved: true}},
		{"\n", codeexec.Approval{Reason: codeexec.DeclinedReason}},
		{"n", codeexec.Approval{Reason: codeexec.DeclinedReason}},
		{"it deletes things\n", codeexec.Approval{Reason: "it deletes things"}},
	}
	for _, tc := range tests {
		require.Equal(t, tc.want, codeexec.ParseApproval(tc.answer), "answer %q", tc.answer)
	}
}

func TestLineApprover(t *testing.T) {
	var out strings.Builder
	a := codeexec.NewLineApprover(strings.NewReader("y\nnot now\n"), &out)
	got, err := a.Approve(t.Context(), codeexec.ApprovalRequest{Code: "1+1", Attempt: 1})
	require.NoError(t, err)
	require.True(t, got.Approved)
	got, err = a.Approve(t.Context(), codeexec.ApprovalRequest{Code: "2+2", Attempt: 2})
	require.NoError(t, err)
	require.Equal(t, codeexec.Approval{Reason: "not now"}, got)
	_, err = a.Approve(t.Context(), codeexec.ApprovalRequest{Code: "3", Attempt: 3})
	require.ErrorContains(t, err, "no answer")
	require.Contains(t, out.String(), "--- code to run (snippet 2) ---\n2+2\n---\nRun it? [y/N]")
}

func TestCodeExecutionDefaultSandboxIsIsolated(t *testing.T) {
	tests := []struct {
		name string
		cfg  func() (codeexec.Config, func())
	}{
		{"default isolated", func() (codeexec.Config, func()) { return codeexec.Config{}, func() {} }},
		{"given executor", func() (codeexec.Config, func()) {
			in, err := sandbox.NewInProcess(sandbox.InProcessConfig{})
			require.NoError(t, err)
			return codeexec.Config{Sandbox: in}, func() { in.Close() }
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m := modeltest.New(t,
				modeltest.ToolCalls(jsCall("c1", "let f = 1; for (let i = 2; i <= 15; i++) f *= i; f")),
				modeltest.Text("15! = 1307674368000"),
			)
			cfg, done := tc.cfg()
			defer done()
			cfg.Model = m
			ce, err := codeexec.New(cfg)
			require.NoError(t, err)
			defer ce.Close()
			res, err := engine.New(engine.Config{}).Invoke(t.Context(), ce, "Calculate 15!")
			require.NoError(t, err)
			require.Equal(t, "15! = 1307674368000", res.Text())
			r := toolResult(t, m, 1)
			require.False(t, r.IsError, "%s", r.Content)
			require.JSONEq(t, `{"result":1307674368000,"logs":[]}`, string(r.Content))
			require.Contains(t, m.Request(0).Messages[0].Text(), "Top-level await is allowed")
		})
	}
}

func TestCodeExecutionRealSandboxErrorsReachTheCoder(t *testing.T) {
	in, err := sandbox.NewInProcess(sandbox.InProcessConfig{Limits: sandbox.Limits{Timeout: 200 * time.Millisecond}})
	require.NoError(t, err)
	defer in.Close()
	m := modeltest.New(t,
		modeltest.ToolCalls(jsCall("c1", "while (true) {}")),
		modeltest.ToolCalls(jsCall("c2", "require('fs')")),
		modeltest.ToolCalls(jsCall("c3", "throw null")),
		modeltest.Text("I could not compute it."),
	)
	ce, err := codeexec.New(codeexec.Config{Model: m, Sandbox: in})
	require.NoError(t, err)
	res, err := engine.New(engine.Config{}).Invoke(t.Context(), ce, "loop")
	require.NoError(t, err, "every sandbox failure goes back to the coder; the run ends with an answer")
	require.Equal(t, "I could not compute it.", res.Text())
	require.Contains(t, strings.ToLower(errorText(t, toolResult(t, m, 1))), "timeout")
	require.Contains(t, errorText(t, toolResult(t, m, 2)), "require")
	require.Contains(t, errorText(t, toolResult(t, m, 3)), "This is the last retry")
}
