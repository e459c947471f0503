package codeexec_test

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/loomwork/loom/agent"
	"github.com/loomwork/loom/codeexec"
	"github.com/loomwork/loom/engine"
	"github.com/loomwork/loom/model/modeltest"
)

func TestCodeExecutionToolsetsOfferedToTheCoder(t *testing.T) {
	type sumIn struct{ A, B int }
	sum, err := agent.NewFunc("get_sum", "adds a and b", func(_ context.Context, in sumIn) (map[string]int, error) {
		return map[string]int{"sum": in.A + in.B}, nil
	})
	require.NoError(t, err)
	m := modeltest.New(t,
		modeltest.ToolCalls(modeltest.Call("c1", "get_sum", `{"A":2,"B":40}`)),
		modeltest.Text("42"),
	)
	sb := &fakeSandbox{}
	ce, err := codeexec.New(codeexec.Config{Model: m, Tool: sb.agent(t), Toolsets: []agent.Toolset{agent.ToolsetFunc(func(context.Context) ([]agent.Agent, error) {
		return []agent.Agent{sum}, nil
	})}})
	require.NoError(t, err)
	res, err := engine.New(engine.Config{}).Invoke(t.Context(), ce, "2 + 40?")
	require.NoError(t, err)
	require.Equal(t, "42", res.Text())
	var names []string
	for _, tl := range m.Request(0).Tools {
		names = append(names, tl.Name)
	}
	require.ElementsMatch(t, []string{"evaluateJs", "get_sum"}, names)
	require.JSONEq(t, `{"sum":42}`, string(toolResult(t, m, 1).Content))
}

// TestToolsetFailuresDoNotSpendTheSnippetBudget: only sandbox snippets
// count against MaxRetries; a failing toolset tool is the coder's business.
func TestToolsetFailuresDoNotSpendTheSnippetBudget(t *testing.T) {
	flaky, err := agent.NewFunc("lookup", "fails", func(context.Context, struct{}) (string, error) {
		return "", errors.New("lookup service down")
	})
	require.NoError(t, err)
	m := modeltest.New(t,
		modeltest.ToolCalls(modeltest.Call("c1", "lookup", `{}`)),
		modeltest.ToolCalls(modeltest.Call("c2", "lookup", `{}`)),
		modeltest.ToolCalls(jsCall("c3", "bad()")),
		modeltest.ToolCalls(jsCall("c4", "6*7")),
		modeltest.Text("no lookup today, but 42"),
	)
	sb := &fakeSandbox{errs: map[string]error{"bad()": errors.New("ReferenceError: bad is not defined")}, results: map[string]any{"6*7": 42}}
	ce, err := codeexec.New(codeexec.Config{Model: m, Tool: sb.agent(t), MaxRetries: 1,
		Toolsets: []agent.Toolset{agent.ToolsetFunc(func(context.Context) ([]agent.Agent, error) { return []agent.Agent{flaky}, nil })}})
	require.NoError(t, err)
	res, err := engine.New(engine.Config{}).Invoke(t.Context(), ce, "look it up")
	require.NoError(t, err, "two failed lookups and one failed snippet are within a budget of one retry")
	require.Equal(t, "no lookup today, but 42", res.Text())
}
