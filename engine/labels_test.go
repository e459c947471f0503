package engine_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/loomwork/loom/agent"
	"github.com/loomwork/loom/checkpoint"
	"github.com/loomwork/loom/engine"
	"github.com/loomwork/loom/internal/testkit"
	"github.com/stretchr/testify/require"
)

// TestLabelsFindRunsAcrossResume: an engine's labels are on every
// checkpoint of its runs, kept when another engine resumes the run, and
// cannot overwrite loom's own keys.
func TestLabelsFindRunsAcrossResume(t *testing.T) {
	ctx := t.Context()
	store := checkpoint.NewMemory()
	ask := testkit.Fn(t, "ask", func(ctx context.Context, _ map[string]any) (map[string]any, error) {
		ans, err := agent.Ask(ctx, "input", "name?", nil)
		if err != nil {
			return nil, err
		}
		return map[string]any{"name": json.RawMessage(ans)}, nil
	})
	e := engine.New(engine.Config{Checkpoints: store, Labels: map[string]string{"loom.file": "/p/a.yaml", "status": "forged"}})
	_, err := e.Invoke(ctx, ask, "x")
	var ie *agent.InterruptedError
	require.ErrorAs(t, err, &ie)
	runs, err := store.Runs(ctx, checkpoint.RunFilter{Meta: map[string]string{"loom.file": "/p/a.yaml"}})
	require.NoError(t, err)
	require.Len(t, runs, 1)
	require.Equal(t, "interrupted", runs[0].Meta["status"], "a label cannot overwrite the status")

	other := engine.New(engine.Config{Checkpoints: store}) // no labels of its own
	_, err = other.ResumeInvoke(ctx, ask, ie.Questions[0].Run, map[string]json.RawMessage{ie.Questions[0].ID: json.RawMessage(`"Ada"`)})
	require.NoError(t, err)
	head, err := store.Head(ctx, ie.Questions[0].Run)
	require.NoError(t, err)
	require.Equal(t, "/p/a.yaml", head.Meta["loom.file"], "the resumed run keeps its labels")
	require.Equal(t, "done", head.Meta["status"])
}
