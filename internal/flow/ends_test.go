package flow_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/loomwork/loom/agent"
	"github.com/loomwork/loom/agent/agentrt"
	"github.com/loomwork/loom/internal/flow"
)

func TestEnds(t *testing.T) {
	live := context.Background()
	done, cancel := context.WithCancel(context.Background())
	cancel()
	tool := errors.New("tool failed: division by zero")
	cases := []struct {
		name string
		ctx  context.Context
		err  error
		want bool
	}{
		{"no error", live, nil, false},
		{"no error, ctx done", done, nil, false},
		{"a step's own failure is handled", live, tool, false},
		{"a wrapped failure is handled", live, fmt.Errorf("executor: %w", tool), false},
		{"a tool error is handled", live, &agent.ToolError{Tool: "evaluateJs", Err: tool}, false},
		{"the consumer stopped", live, agentrt.ErrStopped, true},
		{"a wrapped stop", live, fmt.Errorf("step 2: %w", agentrt.ErrStopped), true},
		{"a limit", live, agent.ErrLimit, true},
		{"a limit error", live, &agent.LimitError{Limit: agent.LimitTurns, Used: 3, Max: 2}, true},
		{"a question waits", live, agent.ErrInterrupted, true},
		{"questions wait", live, &agent.InterruptedError{Questions: []agent.Question{{ID: "q1", Kind: "approval"}}}, true},
		{"a halt", live, agent.Halt(tool), true},
		{"a wrapped halt", live, fmt.Errorf("guard: %w", agent.Halt(tool)), true},
		{"ctx done ends any failure", done, tool, true},
		{"ctx done, its own error", done, context.Canceled, true},
		{"a deadline error on a live ctx is handled", live, context.DeadlineExceeded, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			require.Equal(t, c.want, flow.Ends(c.ctx, c.err))
		})
	}
}
