package compose_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/loomwork/loom/agent"
	"github.com/loomwork/loom/compose"
	"github.com/loomwork/loom/internal/testkit"
	"github.com/stretchr/testify/require"
)

// scriptedCoder returns code "v1", "v2", … and records each request.
func scriptedCoder(t *testing.T) (agent.Agent, *[]string) {
	var asks []string
	return testkit.Fn(t, "coder", func(_ context.Context, in map[string]any) (map[string]any, error) {
		asks = append(asks, in["message"].(string))
		return map[string]any{"code": fmt.Sprintf("v%d", len(asks))}, nil
	}), &asks
}

func TestCoordinatorPlansReviewsExecutesAndCorrects(t *testing.T) {
	planner := testkit.Constant(t, "planner", map[string]any{"subtasks": []any{
		map[string]any{"task": "compute a"}, map[string]any{"task": "compute b"},
	}})
	coder, asks := scriptedCoder(t)
	rev, revAsks := reviewer(t,
		compose.Review{Feedback: "use a loop"}, // v1
		compose.Review{Approved: true},         // v2
		compose.Review{Approved: true},         // v3
		compose.Review{Approved: true},         // v4
	)
	execs := 0
	executor := testkit.Fn(t, "executor", func(_ context.Context, in map[string]any) (map[string]any, error) {
		execs++
		if in["code"] == "v3" {
			return nil, errors.New("ReferenceError: x is not defined")
		}
		return map[string]any{"message": "ran " + in["code"].(string) + " for " + in["task"].(string)}, nil
	})
	c, err := compose.NewCoordinator(compose.CoordinatorConfig{Name: "team", Planner: planner, Coder: coder, Reviewer: rev, Executor: executor})
	require.NoError(t, err)
	out, err := agent.InvokeAs[compose.CoordinatorOutput](t.Context(), c, "compute a and b")
	require.NoError(t, err)

	require.Len(t, *asks, 4)
	require.Equal(t, "Overall task: compute a and b\n\nYour step (1 of 2): compute a", (*asks)[0])
	require.Contains(t, (*asks)[1], "Your previous solution:\n{\"code\":\"v1\"}")
	require.Contains(t, (*asks)[1], "A reviewer rejected it: use a loop")
	require.Contains(t, (*asks)[2], "Results of the earlier steps:\n1. compute a\nran v2 for compute a", "later steps see earlier results")
	require.Contains(t, (*asks)[3], "Running it failed. Attempt 1 failed: ReferenceError: x is not defined\nFind the cause, fix it and try again (2 retries left).")
	require.Equal(t, "Task:\ncompute a\n\nSolution to review:\n{\"code\":\"v1\"}", (*revAsks)[0])
	require.Equal(t, 3, execs)

	require.Len(t, out.Subtasks, 2)
	require.Equal(t, 2, out.Subtasks[0].Rounds)
	require.Equal(t, compose.ResolvedApproved, out.Subtasks[0].Resolution)
	require.Equal(t, 2, out.Subtasks[1].Rounds)
	require.JSONEq(t, `{"message":"ran v4 for compute b"}`, string(out.Subtasks[1].Result))
	require.Equal(t, "1. compute a\nran v2 for compute a\n\n2. compute b\nran v4 for compute b", out.Message)
}

func TestCoordinatorDisagreementIsBounded(t *testing.T) {
	no := compose.Review{Feedback: "wrong"}
	tests := []struct {
		name       string
		arbiter    *compose.Review
		accept     bool
		resolution string
		err        string
	}{
		{name: "fails without arbiter", err: "team: subtask 1 (sum): team: not approved after 2 rounds; last feedback: wrong"},
		{name: "accepted by policy", accept: true, resolution: compose.ResolvedAccepted},
		{name: "arbiter approves", arbiter: &compose.Review{Approved: true}, resolution: compose.ResolvedArbiter},
		{name: "arbiter rejects", arbiter: &compose.Review{Feedback: "reviewer is right"}, err: "last feedback: reviewer is right"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			coder, asks := scriptedCoder(t)
			rev, _ := reviewer(t, no, no)
			cfg := compose.CoordinatorConfig{Name: "team", Coder: coder, Reviewer: rev, MaxRounds: 2, AcceptOnDisagreement: tc.accept}
			var arbiterAsk string
			if tc.arbiter != nil {
				cfg.Arbiter = testkit.Fn(t, "arbiter", func(_ context.Context, in map[string]any) (map[string]any, error) {
					arbiterAsk = in["message"].(string)
					return map[string]any{"approved": tc.arbiter.Approved, "feedback": tc.arbiter.Feedback}, nil
				})
			}
			c, err := compose.NewCoordinator(cfg)
			require.NoError(t, err)
			out, err := agent.InvokeAs[compose.CoordinatorOutput](t.Context(), c, "sum")
			require.Len(t, *asks, 2, "the coder runs MaxRounds times, no more")
			if tc.arbiter != nil {
				require.Contains(t, arbiterAsk, "A reviewer still rejects it after 2 rounds: wrong")
			}
			if tc.err != "" {
				require.ErrorIs(t, err, compose.ErrNotApproved)
				var se *compose.SubtaskError
				require.ErrorAs(t, err, &se)
				require.ErrorContains(t, err, tc.err)
				return
			}
			require.NoError(t, err)
			require.Equal(t, tc.resolution, out.Subtasks[0].Resolution)
			require.Equal(t, `{"code":"v2"}`, out.Message)
		})
	}
}

func TestCoordinatorExecutionRetriesExhausted(t *testing.T) {
	coder, _ := scriptedCoder(t)
	broken := errors.New("SyntaxError: unexpected token")
	executor := testkit.Fn(t, "executor", func(context.Context, map[string]any) (map[string]any, error) { return nil, broken })
	c, err := compose.NewCoordinator(compose.CoordinatorConfig{Name: "team", Coder: coder, Executor: executor, MaxRounds: 3})
	require.NoError(t, err)
	_, err = agent.Invoke(t.Context(), c, "do it")
	require.ErrorIs(t, err, compose.ErrRetriesExhausted)
	require.ErrorIs(t, err, broken)
	var re *compose.RetriesError
	require.ErrorAs(t, err, &re)
	require.Equal(t, 3, re.Attempts)
	require.Equal(t, 2, re.Retries)
}

func TestCoordinatorSynthesizerAndPlanLimits(t *testing.T) {
	planner := testkit.Constant(t, "planner", map[string]any{"subtasks": []any{map[string]any{"task": "a"}, map[string]any{"task": "b"}}})
	var synthAsk string
	synth := testkit.Fn(t, "synth", func(_ context.Context, in map[string]any) (map[string]any, error) {
		synthAsk = in["message"].(string)
		return map[string]any{"message": "all done"}, nil
	})
	coder, _ := scriptedCoder(t)
	c, err := compose.NewCoordinator(compose.CoordinatorConfig{Name: "team", Planner: planner, Coder: coder, Synthesizer: synth})
	require.NoError(t, err)
	out, err := agent.InvokeAs[compose.CoordinatorOutput](t.Context(), c, "a then b")
	require.NoError(t, err)
	require.Equal(t, "all done", out.Message)
	require.True(t, strings.HasPrefix(synthAsk, "Task: a then b\n\nResults of the subtasks:\n1. a\n{\"code\":\"v1\"}"), synthAsk)

	small, err := compose.NewCoordinator(compose.CoordinatorConfig{Name: "team", Planner: planner, Coder: coder, MaxSubtasks: 1})
	require.NoError(t, err)
	_, err = agent.Invoke(t.Context(), small, "a then b")
	require.ErrorContains(t, err, "split the task into 2 subtasks, more than MaxSubtasks (1)")

	bad, err := compose.NewCoordinator(compose.CoordinatorConfig{Name: "team", Planner: testkit.Constant(t, "planner", map[string]any{"subtasks": "x"}), Coder: coder})
	require.NoError(t, err)
	_, err = agent.Invoke(t.Context(), bad, "x")
	require.ErrorContains(t, err, "which is not a plan")

	_, err = compose.NewCoordinator(compose.CoordinatorConfig{Name: "team"})
	require.ErrorContains(t, err, "no Coder")
}
