package engine_test

import (
	"context"
	"encoding/json"
	"errors"
	"sync/atomic"
	"testing"

	"github.com/loomwork/loom/agent"
	"github.com/loomwork/loom/checkpoint"
	"github.com/loomwork/loom/compose"
	"github.com/loomwork/loom/engine"
	"github.com/loomwork/loom/internal/testkit"
	"github.com/stretchr/testify/require"
)

// kinds lists the kinds of run runID's checkpoints, or nil when it has none.
func kinds(t *testing.T, s checkpoint.Store, runID string) []string {
	t.Helper()
	cps, err := s.List(t.Context(), runID)
	if errors.Is(err, checkpoint.ErrNotFound) {
		return nil
	}
	require.NoError(t, err)
	var out []string
	for _, cp := range cps {
		out = append(out, cp.Kind)
	}
	return out
}

// askingSequence is a sequence whose first step has a side effect (counted
// in ran) and whose second asks a question: a resume must replay the first
// step, not run it again.
func askingSequence(t *testing.T, ran *atomic.Int32) agent.Agent {
	t.Helper()
	effect := testkit.Fn(t, "effect", func(context.Context, map[string]any) (map[string]any, error) {
		ran.Add(1)
		return map[string]any{"effect": true}, nil
	})
	ask := testkit.Fn(t, "ask", func(ctx context.Context, _ map[string]any) (map[string]any, error) {
		ans, err := agent.Ask(ctx, "input", "name?", json.RawMessage(`{"type":"string"}`))
		if err != nil {
			return nil, err
		}
		return map[string]any{"name": json.RawMessage(ans)}, nil
	})
	seq, err := compose.NewSequence(compose.SequenceConfig{Name: "seq", Steps: []agent.Agent{effect, ask}})
	require.NoError(t, err)
	return seq
}

// TestCheckpointAtInterruptsWritesOnlyWhenARunWaits: under
// CheckpointAtInterrupts a run that never waits writes nothing, one that
// waits writes one interrupt checkpoint holding what it did, and its
// resume replays that work (run once), then closes the line with its end.
// Under the default every step is written.
func TestCheckpointAtInterruptsWritesOnlyWhenARunWaits(t *testing.T) {
	ok := testkit.Fn(t, "ok", func(context.Context, map[string]any) (map[string]any, error) { return map[string]any{"a": 1}, nil })
	for _, tc := range []struct {
		name                 string
		policy               engine.CheckpointPolicy
		done, waits, resumed []string
		failed               []string
		failing              bool
	}{
		{
			name:    "default: every step",
			done:    []string{"start", "end"},
			waits:   []string{"start", "step", "step", "step", "interrupt"},
			resumed: []string{"start", "step", "step", "step", "interrupt", "resume", "step", "end"},
		},
		{
			name:    "at interrupts",
			policy:  engine.CheckpointAtInterrupts,
			done:    nil,
			waits:   []string{"interrupt"},
			resumed: []string{"interrupt", "resume", "end"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := t.Context()
			store := checkpoint.NewMemory()
			e := engine.New(engine.Config{Checkpoints: store, CheckpointPolicy: tc.policy})

			var root string
			for ev, err := range e.Run(ctx, ok, "x") {
				require.NoError(t, err)
				if ev.Kind == agent.EventRunStart && ev.ParentID == "" {
					root = ev.RunID
				}
			}
			require.Equal(t, tc.done, kinds(t, store, root), "a run that never waits")

			var ran atomic.Int32
			seq := askingSequence(t, &ran)
			_, err := e.Invoke(ctx, seq, "go")
			var ie *agent.InterruptedError
			require.ErrorAs(t, err, &ie)
			q := ie.Questions[0]
			require.Equal(t, tc.waits, kinds(t, store, q.Run), "a run that waits")
			pending, err := e.Pending(ctx, q.Run)
			require.NoError(t, err)
			require.Len(t, pending, 1)
			require.Equal(t, q.ID, pending[0].ID)

			res, err := e.ResumeInvoke(ctx, seq, q.Run, map[string]json.RawMessage{q.ID: json.RawMessage(`"Ada"`)})
			require.NoError(t, err)
			require.JSONEq(t, `{"effect":true,"name":"Ada"}`, string(res.Output))
			require.EqualValues(t, 1, ran.Load(), "the step before the question is replayed, not run again")
			require.Equal(t, tc.resumed, kinds(t, store, q.Run), "the resumed run's line")
			_, err = e.ResumeInvoke(ctx, seq, q.Run, nil)
			require.ErrorIs(t, err, engine.ErrRunEnded, "the ended line says so")
		})
	}
}

// TestCheckpointAtInterruptsResumesAcrossQuestions: a run that asks twice
// under CheckpointAtInterrupts waits again after its first resume, from
// the checkpoints written then, and ends with both answers.
func TestCheckpointAtInterruptsResumesAcrossQuestions(t *testing.T) {
	ctx := t.Context()
	store := checkpoint.NewMemory()
	e := engine.New(engine.Config{Checkpoints: store, CheckpointPolicy: engine.CheckpointAtInterrupts})
	var asked atomic.Int32
	twice := testkit.Fn(t, "twice", func(ctx context.Context, _ map[string]any) (map[string]any, error) {
		asked.Add(1)
		first, err := agent.Ask(ctx, "input", "first?", json.RawMessage(`{"type":"string"}`))
		if err != nil {
			return nil, err
		}
		second, err := agent.Ask(ctx, "input", "second?", json.RawMessage(`{"type":"string"}`))
		if err != nil {
			return nil, err
		}
		return map[string]any{"first": json.RawMessage(first), "second": json.RawMessage(second)}, nil
	})
	_, err := e.Invoke(ctx, twice, "go")
	var ie *agent.InterruptedError
	require.ErrorAs(t, err, &ie)
	root := ie.Questions[0].Run
	_, err = e.ResumeInvoke(ctx, twice, root, map[string]json.RawMessage{ie.Questions[0].ID: json.RawMessage(`"a"`)})
	var again *agent.InterruptedError
	require.ErrorAs(t, err, &again)
	require.NotEqual(t, ie.Questions[0].ID, again.Questions[0].ID)
	require.Equal(t, []string{"interrupt", "resume", "interrupt"}, kinds(t, store, root))
	res, err := e.ResumeInvoke(ctx, twice, root, map[string]json.RawMessage{again.Questions[0].ID: json.RawMessage(`"b"`)})
	require.NoError(t, err)
	require.JSONEq(t, `{"first":"a","second":"b"}`, string(res.Output))
	require.Equal(t, []string{"interrupt", "resume", "interrupt", "resume", "end"}, kinds(t, store, root))
}

// TestCheckpointAtInterruptsLeavesFailedRunsUnwritten: a run that fails
// before it ever waits writes nothing under CheckpointAtInterrupts.
func TestCheckpointAtInterruptsLeavesFailedRunsUnwritten(t *testing.T) {
	store := checkpoint.NewMemory()
	e := engine.New(engine.Config{Checkpoints: store, CheckpointPolicy: engine.CheckpointAtInterrupts})
	boom := errors.New("boom")
	fail := testkit.Fn(t, "fail", func(context.Context, map[string]any) (map[string]any, error) { return nil, boom })
	var root string
	var last error
	for ev, err := range e.Run(t.Context(), fail, "x") {
		if ev.Kind == agent.EventRunStart && ev.ParentID == "" {
			root = ev.RunID
		}
		last = err
	}
	require.ErrorIs(t, last, boom)
	require.Nil(t, kinds(t, store, root))
	runs, err := store.Runs(t.Context(), checkpoint.RunFilter{})
	require.NoError(t, err)
	require.Empty(t, runs)
}

// A CheckpointPolicy that is none of the policies is refused: every run of
// the engine fails at once, naming the field.
func TestCheckpointPolicyOutOfRangeIsRefused(t *testing.T) {
	ok := testkit.Fn(t, "ok", func(context.Context, map[string]any) (map[string]any, error) { return map[string]any{"a": 1}, nil })
	for _, p := range []engine.CheckpointPolicy{-1, 7} {
		e := engine.New(engine.Config{Checkpoints: checkpoint.NewMemory(), CheckpointPolicy: p})
		_, err := e.Invoke(t.Context(), ok, "x")
		require.ErrorIs(t, err, agent.ErrInvalidConfig)
		require.ErrorContains(t, err, "CheckpointPolicy")
	}
}
