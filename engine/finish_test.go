package engine_test

import (
	"testing"

	"github.com/loomwork/loom/agent"
	"github.com/loomwork/loom/compose"
	"github.com/loomwork/loom/engine"
	"github.com/loomwork/loom/internal/testkit"
	"github.com/loomwork/loom/model"
	"github.com/loomwork/loom/model/modeltest"
	"github.com/stretchr/testify/require"
)

func TestResultFinishReason(t *testing.T) {
	cut := modeltest.Chunks(model.Chunk{TextDelta: "half an ans"}, model.Chunk{FinishReason: model.FinishLength})
	cases := []struct {
		name  string
		turns []modeltest.Turn
		steps int
		want  model.FinishReason
	}{
		{"AI root complete", []modeltest.Turn{modeltest.Text("done")}, 1, model.FinishStop},
		{"AI root cut", []modeltest.Turn{cut}, 1, model.FinishLength},
		{"a cut step is kept", []modeltest.Turn{cut, modeltest.Text("fine")}, 2, model.FinishLength},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := engine.New(engine.Config{Model: modeltest.New(t, c.turns...)})
			var root agent.Agent = testkit.NewAI(t, agent.AIConfig{Name: "writer"})
			if c.steps > 1 {
				seq, err := compose.NewSequence(compose.SequenceConfig{Name: "pipeline", Steps: []agent.Agent{root, testkit.NewAI(t, agent.AIConfig{Name: "editor"})}})
				require.NoError(t, err)
				root = seq
			}
			res, err := e.Invoke(t.Context(), root, "Write.")
			require.NoError(t, err)
			require.Equal(t, c.want, res.FinishReason)
			if c.want == model.FinishLength {
				require.ErrorIs(t, res.FinishReason.Err(), model.ErrOutputLimit)
			}
		})
	}
}
