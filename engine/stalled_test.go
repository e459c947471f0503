package engine_test

import (
	"context"
	"iter"
	"sync/atomic"
	"testing"

	"github.com/loomwork/loom/agent"
	"github.com/loomwork/loom/checkpoint"
	"github.com/loomwork/loom/engine"
	"github.com/loomwork/loom/internal/testkit"
	"github.com/loomwork/loom/model"
	"github.com/loomwork/loom/model/modeltest"
	"github.com/stretchr/testify/require"
)

// stalledModel blocks its first call until release is closed, as a
// process that hangs (or is paused) mid-step would.
type stalledModel struct {
	model.Model
	entered, release chan struct{}
	calls            atomic.Int64
}

func (s *stalledModel) Stream(ctx context.Context, req model.Request) iter.Seq2[model.Chunk, error] {
	if s.calls.Add(1) == 1 {
		close(s.entered)
		<-s.release
	}
	return s.Model.Stream(ctx, req)
}

// TestStalledProcessCannotAdvanceAResumedRun: a run whose process stalls
// mid-step (alive, not dead) is resumed elsewhere; when the stalled process
// wakes, its next checkpoint loses the compare-and-swap, it stops with
// ErrAlreadyResumed, and the tool call its late model reply asked for does
// not run. Only the resumed run advances.
func TestStalledProcessCannotAdvanceAResumedRun(t *testing.T) {
	ctx := t.Context()
	store := checkpoint.NewMemory()
	var effects atomic.Int64
	tool := testkit.Fn(t, "effect", func(context.Context, map[string]any) (map[string]any, error) {
		effects.Add(1)
		return map[string]any{"ok": true}, nil
	})
	script := func() []modeltest.Turn {
		return []modeltest.Turn{modeltest.ToolCalls(modeltest.Call("c1", "effect", `{}`)), modeltest.Text("done")}
	}
	stalled := &stalledModel{Model: modeltest.New(t, script()...), entered: make(chan struct{}), release: make(chan struct{})}
	slow := testkit.NewAI(t, agent.AIConfig{Name: "worker", Model: stalled, Tools: []agent.Agent{tool}})
	first := engine.New(engine.Config{Checkpoints: store})

	type outcome struct {
		err error
	}
	done := make(chan outcome, 1)
	var runID atomic.Value
	go func() {
		var last error
		for ev, err := range first.Run(ctx, slow, "work") {
			if ev.Kind == agent.EventRunStart && ev.ParentID == "" {
				runID.Store(ev.RunID)
			}
			if err != nil {
				last = err
			}
		}
		done <- outcome{last}
	}()
	<-stalled.entered

	// Another process takes the run over and finishes it.
	fresh := modeltest.New(t, script()...)
	second := engine.New(engine.Config{Checkpoints: store})
	res, err := second.ResumeInvoke(ctx, testkit.NewAI(t, agent.AIConfig{Name: "worker", Model: fresh, Tools: []agent.Agent{tool}}), runID.Load().(string), nil)
	require.NoError(t, err)
	require.Equal(t, "done", res.Text())
	require.Equal(t, int64(1), effects.Load())

	// The stalled process wakes: it must not advance the run.
	close(stalled.release)
	out := <-done
	require.ErrorIs(t, out.err, engine.ErrAlreadyResumed)
	require.Equal(t, int64(1), effects.Load(), "the stalled process's late reply ran no tool")
	head, err := store.Head(ctx, runID.Load().(string))
	require.NoError(t, err)
	require.Equal(t, engine.CheckpointEnd, head.Kind)
	require.Equal(t, "done", head.Meta["status"], "the run ended as the resumed process ended it")
}
