package agent_test

import (
	"testing"

	"github.com/loomwork/loom/agent"
	"github.com/loomwork/loom/agent/agentrt"
	"github.com/loomwork/loom/internal/testkit"
	"github.com/loomwork/loom/model"
	"github.com/loomwork/loom/model/modeltest"
	"github.com/stretchr/testify/require"
)

// runEnd returns the outermost run's EventRunEnd.
func runEnd(t *testing.T, a agent.Agent, input any) agent.Event {
	t.Helper()
	raw, err := agentrt.EncodeInput(input)
	require.NoError(t, err)
	var end agent.Event
	for ev := range a.Run(t.Context(), raw) {
		if ev.Kind == agent.EventRunEnd && ev.ParentID == "" {
			end = ev
		}
	}
	return end
}

func TestRunEndCarriesTheFinishReason(t *testing.T) {
	cases := []struct {
		name string
		turn modeltest.Turn
		want model.FinishReason
	}{
		{"complete", modeltest.Text("done"), model.FinishStop},
		{"cut", modeltest.Chunks(model.Chunk{TextDelta: "half an ans"}, model.Chunk{FinishReason: model.FinishLength}), model.FinishLength},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			a := testkit.NewAI(t, agent.AIConfig{Name: "writer", Model: modeltest.New(t, c.turn)})
			end := runEnd(t, a, "Write.")
			require.NoError(t, end.Err)
			require.Equal(t, c.want, end.FinishReason)
		})
	}
}

func TestCutToolArgumentsFailTheRun(t *testing.T) {
	m := modeltest.New(t, modeltest.Chunks(
		model.Chunk{ToolCall: &model.ToolCallDelta{ID: "call_1", Name: "add", ArgumentsDelta: `{"a":2,"b`}},
		model.Chunk{FinishReason: model.FinishLength},
	))
	a := testkit.NewAI(t, agent.AIConfig{Name: "calc", Model: m, Tools: []agent.Agent{addTool(t)}})
	end := runEnd(t, a, "What is 2+3?")
	require.ErrorIs(t, end.Err, model.ErrOutputLimit)
	var cut *model.CutToolCallError
	require.ErrorAs(t, end.Err, &cut)
	require.Equal(t, "add", cut.Name)
	require.Equal(t, model.FinishLength, end.FinishReason)
}
