package engine_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/loomwork/loom/agent"
	"github.com/loomwork/loom/checkpoint"
	"github.com/loomwork/loom/engine"
	"github.com/loomwork/loom/internal/testkit"
	"github.com/loomwork/loom/model/modeltest"
	"github.com/stretchr/testify/require"
)

// TestGuardrailAgentsReplayOnResume: guardrails that are agents are child
// runs, so a run resumed from its checkpoints replays the ones that ended
// instead of calling their models again, and runs the rest once.
func TestGuardrailAgentsReplayOnResume(t *testing.T) {
	ctx := t.Context()
	judge := func(name string) (*agent.AI, *modeltest.Scripted) {
		m := modeltest.New(t, modeltest.JSON(agent.Allow()).WithUsage(10, 1))
		return testkit.NewAI(t, agent.AIConfig{Name: name, Model: m, OutputSchema: agent.VerdictSchema()}), m
	}
	inJudge, inModel := judge("input_judge")
	argJudge, argModel := judge("args_judge")
	outJudge, outModel := judge("output_judge")
	confirm := testkit.Fn(t, "confirm", func(ctx context.Context, in map[string]any) (map[string]any, error) {
		ans, err := agent.Ask(ctx, "approval", in, nil)
		if err != nil {
			return nil, err
		}
		return map[string]any{"approved": json.RawMessage(ans)}, nil
	})
	guarded, err := agent.GuardTool(confirm, agent.ToolGuards{Before: []agent.Guardrail{{Name: "args", Agent: argJudge}}})
	require.NoError(t, err)
	m := modeltest.New(t, modeltest.ToolCalls(modeltest.Call("c1", "confirm", `{"deploy":"prod"}`)).WithUsage(100, 10))
	a := testkit.NewAI(t, agent.AIConfig{Name: "deployer", Model: m, Tools: []agent.Agent{guarded},
		InputGuardrails:  []agent.Guardrail{{Name: "input", Agent: inJudge}},
		OutputGuardrails: []agent.Guardrail{{Name: "output", Agent: outJudge}},
		OutputHold:       agent.OutputHold{On: true},
	})
	e := engine.New(engine.Config{Checkpoints: checkpoint.NewMemory()})
	_, err = e.Invoke(ctx, a, "deploy to prod")
	var ie *agent.InterruptedError
	require.ErrorAs(t, err, &ie)
	require.Equal(t, 1, inModel.Calls())
	require.Equal(t, 1, argModel.Calls())
	require.Zero(t, outModel.Calls())

	m.Append(modeltest.Text("deployed").WithUsage(200, 20))
	res, err := e.ResumeInvoke(ctx, a, ie.Questions[0].Run, map[string]json.RawMessage{ie.Questions[0].ID: json.RawMessage(`true`)})
	require.NoError(t, err)
	require.Equal(t, "deployed", res.Text())
	require.Equal(t, 1, inModel.Calls(), "the input guardrail was replayed, not called again")
	require.Equal(t, 1, argModel.Calls(), "the tool's guardrail was replayed, not called again")
	require.Equal(t, 1, outModel.Calls(), "the output guardrail ran once, after the resume")
	require.Equal(t, 2, m.Calls())
	require.EqualValues(t, 100+10+200+20+3*(10+1), res.Usage.Total(), "the guardrails' tokens count for the run")
}
