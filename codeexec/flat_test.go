package codeexec_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/stretchr/testify/require"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/loomwork/loom/agent"
	"github.com/loomwork/loom/checkpoint"
	"github.com/loomwork/loom/codeexec"
	"github.com/loomwork/loom/compose"
	"github.com/loomwork/loom/engine"
	"github.com/loomwork/loom/internal/testkit"
	"github.com/loomwork/loom/model/modeltest"
	"github.com/loomwork/loom/sandbox"
	"github.com/loomwork/loom/sandbox/jstool"
)

// TestOneSnippetIsOneToolRun: a snippet is one run of the sandbox tool,
// with the sandbox's span under it; the reviewer and the approver check it
// inside that run, not in a run of their own around it.
func TestOneSnippetIsOneToolRun(t *testing.T) {
	exec, err := sandbox.NewInProcess(sandbox.InProcessConfig{})
	require.NoError(t, err)
	t.Cleanup(func() { _ = exec.Close() })
	sb, err := jstool.New(exec, jstool.Config{})
	require.NoError(t, err)
	approve := codeexec.ApproverFunc(func(context.Context, codeexec.ApprovalRequest) (codeexec.Approval, error) {
		return codeexec.Approval{Approved: true}, nil
	})
	cases := []struct {
		name     string
		reviewed bool
		starts   []string
		events   int
		spans    []string
	}{
		{
			name:   "plain",
			starts: []string{"code_execution", "coder", "evaluateJs"},
			// 3 run starts and ends, 2 model responses, 1 tool call and
			// its result, 1 text delta (the scripted model reports no
			// usage).
			events: 11,
			spans:  []string{"invoke_agent code_execution", "invoke_agent coder", "chat scripted", "chat scripted", "execute_tool evaluateJs", "invoke_agent evaluateJs", "sandbox.run"},
		},
		{
			name:     "reviewed and approved",
			reviewed: true,
			starts:   []string{"code_execution", "coder", "evaluateJs", "reviewer"},
			events:   13,
			spans: []string{"invoke_agent code_execution", "invoke_agent coder", "chat scripted", "chat scripted", "execute_tool evaluateJs", "invoke_agent evaluateJs",
				"guardrail code_review", "invoke_agent reviewer", "guardrail code_approval", "sandbox.run"},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			cfg := codeexec.Config{Tool: sb}
			if tc.reviewed {
				cfg.Reviewer, _ = reviewer(t, compose.Review{Approved: true})
				cfg.Approver = approve
			}
			ce, err := codeexec.New(cfg)
			require.NoError(t, err)
			rec := tracetest.NewSpanRecorder()
			tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
			m := modeltest.New(t, modeltest.ToolCalls(jsCall("c1", "6*7")), modeltest.Text("42"))
			e := engine.New(engine.Config{Model: m, TracerProvider: tp})
			evs := testkit.Events(t, e.Run(t.Context(), ce, "6*7"))
			require.Equal(t, tc.starts, testkit.Starts(evs))
			require.Len(t, kinds(evs), tc.events)

			spans := rec.Ended()
			byID := map[[8]byte]sdktrace.ReadOnlySpan{}
			var names []string
			for _, s := range spans {
				byID[s.SpanContext().SpanID()] = s
			}
			tool, run := 0, sdktrace.ReadOnlySpan(nil)
			for _, s := range spans {
				names = append(names, s.Name())
				if s.Name() == "invoke_agent evaluateJs" {
					tool++
				}
				if s.Name() == "sandbox.run" {
					run = s
				}
			}
			require.ElementsMatch(t, tc.spans, names)
			require.Equal(t, 1, tool, "one run of the sandbox tool")
			require.NotNil(t, run)
			parent := byID[run.Parent().SpanID()]
			require.NotNil(t, parent)
			require.Equal(t, "invoke_agent evaluateJs", parent.Name(), "the sandbox runs in the tool's run")
		})
	}
}

func kinds(evs []agent.Event) []string {
	out := make([]string, len(evs))
	for i, ev := range evs {
		out[i] = ev.Agent + ":" + ev.Kind.String()
	}
	return out
}

// TestBudgetCountsReplayedSnippets: a resumed run counts the snippets it
// replays against the retry budget, so a failure after the resume spends
// what the failure before it left.
func TestBudgetCountsReplayedSnippets(t *testing.T) {
	ctx := t.Context()
	sb := &fakeSandbox{errs: map[string]error{"x * 7": errors.New("ReferenceError: x is not defined"), "y * 7": errors.New("ReferenceError: y is not defined")}}
	// The first snippet runs at once; the second waits for a person.
	approver := codeexec.ApproverFunc(func(_ context.Context, req codeexec.ApprovalRequest) (codeexec.Approval, error) {
		if req.Attempt == 1 {
			return codeexec.Approval{Approved: true}, nil
		}
		return codeexec.Approval{}, codeexec.ErrPending
	})
	m := modeltest.New(t, modeltest.ToolCalls(jsCall("c1", "x * 7")), modeltest.ToolCalls(jsCall("c2", "y * 7")))
	ce, err := codeexec.New(codeexec.Config{Model: m, Tool: sb.agent(t), Approver: approver, MaxRetries: 1})
	require.NoError(t, err)
	e := engine.New(engine.Config{Checkpoints: checkpoint.NewMemory()})
	_, err = e.Invoke(ctx, ce, "6*7")
	var ie *agent.InterruptedError
	require.ErrorAs(t, err, &ie)
	require.Len(t, ie.Questions, 1)
	var req codeexec.ApprovalRequest
	require.NoError(t, json.Unmarshal(ie.Questions[0].Payload, &req))
	require.Equal(t, 2, req.Attempt, "the failed snippet counted")

	_, err = e.ResumeInvoke(ctx, ce, ie.Questions[0].Run, map[string]json.RawMessage{ie.Questions[0].ID: json.RawMessage(`{"approved":true}`)})
	require.ErrorIs(t, err, compose.ErrRetriesExhausted, "the replayed failure and the new one spend a budget of one retry")
	var re *compose.RetriesError
	require.ErrorAs(t, err, &re)
	require.Equal(t, 2, re.Attempts)
	require.Equal(t, []string{"x * 7", "y * 7"}, sb.ran, "the first snippet ran once, before the question")
}
