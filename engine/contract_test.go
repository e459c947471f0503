package engine_test

import (
	"context"
	"encoding/json"
	"iter"
	"testing"

	"github.com/loomwork/loom/agent"
	"github.com/loomwork/loom/checkpoint"
	"github.com/loomwork/loom/compose"
	"github.com/loomwork/loom/engine"
	"github.com/loomwork/loom/internal/testkit"
	"github.com/loomwork/loom/model/modeltest"
	"github.com/stretchr/testify/require"
)

// TestStreamsEndWithOneRunEnd: every stream of an engine or a session,
// including one that cannot start, is a run: one root EventRunStart, one
// root EventRunEnd last, and no event without a kind.
func TestStreamsEndWithOneRunEnd(t *testing.T) {
	e := engine.New(engine.Config{Model: modeltest.New(t)})
	ok := testkit.Fn(t, "ok", func(context.Context, map[string]any) (map[string]any, error) { return map[string]any{"a": 1}, nil })
	busy := engine.New(engine.Config{}).NewSession(ok, nil)
	block := make(chan struct{})
	slow := testkit.Fn(t, "slow", func(context.Context, map[string]any) (map[string]any, error) { <-block; return nil, nil })
	slowSession := engine.New(engine.Config{}).NewSession(slow, nil)
	started := make(chan struct{})
	go func() {
		for ev := range slowSession.Run(t.Context(), "hi") {
			if ev.Kind == agent.EventRunStart {
				close(started)
			}
		}
	}()
	<-started
	defer close(block)
	for _, tc := range []struct {
		name   string
		stream iter.Seq2[agent.Event, error]
		fails  error
	}{
		{"a run that ends", e.Run(t.Context(), ok, "x"), nil},
		{"a nil agent", e.Run(t.Context(), nil, "x"), agent.ErrInvalidConfig},
		{"input that is not JSON", e.Run(t.Context(), ok, json.RawMessage(`{`)), agent.ErrInvalidInput},
		{"a resume with no store", e.Resume(t.Context(), ok, "r", nil), engine.ErrNoCheckpoints},
		{"a resume of an unknown run", engine.New(engine.Config{Checkpoints: checkpoint.NewMemory()}).Resume(t.Context(), ok, "nope", nil), engine.ErrNoCheckpoints},
		{"a busy session", slowSession.Run(t.Context(), "again"), engine.ErrSessionBusy},
		{"a session turn", busy.Run(t.Context(), "x"), nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var evs []agent.Event
			var last error
			for ev, err := range tc.stream {
				require.NotZero(t, ev.Kind, "no event without a kind")
				evs = append(evs, ev)
				last = err
			}
			require.NotEmpty(t, evs)
			root := evs[0]
			require.Equal(t, agent.EventRunStart, root.Kind)
			end := evs[len(evs)-1]
			require.Equal(t, agent.EventRunEnd, end.Kind)
			require.Equal(t, root.RunID, end.RunID)
			ends := 0
			for _, ev := range evs {
				if ev.Kind == agent.EventRunEnd && ev.RunID == root.RunID {
					ends++
				}
			}
			require.Equal(t, 1, ends)
			if tc.fails != nil {
				require.ErrorIs(t, last, tc.fails)
				require.ErrorIs(t, end.Err, tc.fails)
			} else {
				require.NoError(t, last)
			}
		})
	}
}

// TestParallelQuestionsAreOnePause: tool calls of one turn and branches of
// a Parallel that each ask are collected into one pause, and one resume
// with every answer finishes the run without repeating the model call.
func TestParallelQuestionsAreOnePause(t *testing.T) {
	ctx := t.Context()
	confirm := testkit.Fn(t, "confirm", func(ctx context.Context, in map[string]any) (map[string]any, error) {
		ans, err := agent.Ask(ctx, "input", in, json.RawMessage(`{"type":"string"}`))
		if err != nil {
			return nil, err
		}
		var s string
		_ = json.Unmarshal(ans, &s)
		return map[string]any{"said": s}, nil
	})
	t.Run("tool calls", func(t *testing.T) {
		m := modeltest.New(t, modeltest.ToolCalls(modeltest.Call("c1", "confirm", `{"q":"a"}`), modeltest.Call("c2", "confirm", `{"q":"b"}`)))
		a := testkit.NewAI(t, agent.AIConfig{Name: "asker", Model: m, Tools: []agent.Agent{confirm}})
		e := engine.New(engine.Config{Checkpoints: checkpoint.NewMemory()})
		_, err := e.Invoke(ctx, a, "go")
		var ie *agent.InterruptedError
		require.ErrorAs(t, err, &ie)
		require.Len(t, ie.Questions, 2, "both calls' questions in one pause")
		answers := map[string]json.RawMessage{}
		for i, q := range ie.Questions {
			answers[q.ID] = json.RawMessage([]string{`"yes"`, `"no"`}[i])
		}
		m.Append(modeltest.Text("done"))
		res, err := e.ResumeInvoke(ctx, a, ie.Questions[0].Run, answers)
		require.NoError(t, err)
		require.Equal(t, "done", res.Text())
		require.Equal(t, 2, m.Calls(), "the first call was not repeated")
		results := m.Request(1).Messages[len(m.Request(1).Messages)-1].ToolResults()
		require.Len(t, results, 2)
		require.JSONEq(t, `{"said":"yes"}`, string(results[0].Content))
		require.JSONEq(t, `{"said":"no"}`, string(results[1].Content))
	})
	t.Run("parallel branches", func(t *testing.T) {
		p, err := compose.NewParallel(compose.ParallelConfig{Name: "both", Branches: []agent.Agent{
			confirm, testkit.Fn(t, "other", func(ctx context.Context, in map[string]any) (map[string]any, error) {
				ans, err := agent.Ask(ctx, "input", "again?", nil)
				if err != nil {
					return nil, err
				}
				return map[string]any{"other": json.RawMessage(ans)}, nil
			}),
		}})
		require.NoError(t, err)
		e := engine.New(engine.Config{Checkpoints: checkpoint.NewMemory()})
		_, err = e.Invoke(ctx, p, map[string]any{"q": "c"})
		var ie *agent.InterruptedError
		require.ErrorAs(t, err, &ie)
		require.Len(t, ie.Questions, 2)
		pending, err := e.Pending(ctx, ie.Questions[0].Run)
		require.NoError(t, err)
		require.Len(t, pending, 2)
		res, err := e.ResumeInvoke(ctx, p, ie.Questions[0].Run, map[string]json.RawMessage{
			ie.Questions[0].ID: json.RawMessage(`"ok"`), ie.Questions[1].ID: json.RawMessage(`42`),
		})
		require.NoError(t, err)
		require.JSONEq(t, `{"said":"ok","other":42}`, string(res.Output))
	})
}

// TestResumeWithoutTheAnswerAsksAgain: a resume that does not answer the
// pending question leaves the run waiting for it, listed once.
func TestResumeWithoutTheAnswerAsksAgain(t *testing.T) {
	ctx := t.Context()
	ask := testkit.Fn(t, "ask", func(ctx context.Context, _ map[string]any) (map[string]any, error) {
		ans, err := agent.Ask(ctx, "input", "name?", json.RawMessage(`{"type":"string"}`))
		if err != nil {
			return nil, err
		}
		return map[string]any{"name": json.RawMessage(ans)}, nil
	})
	e := engine.New(engine.Config{Checkpoints: checkpoint.NewMemory()})
	_, err := e.Invoke(ctx, ask, "go")
	var ie *agent.InterruptedError
	require.ErrorAs(t, err, &ie)
	q := ie.Questions[0]
	for range 2 {
		_, err = e.ResumeInvoke(ctx, ask, q.Run, nil)
		var again *agent.InterruptedError
		require.ErrorAs(t, err, &again)
		require.Equal(t, q.ID, again.Questions[0].ID)
	}
	pending, err := e.Pending(ctx, q.Run)
	require.NoError(t, err)
	require.Len(t, pending, 1, "asked three times, listed once")
	res, err := e.ResumeInvoke(ctx, ask, q.Run, map[string]json.RawMessage{q.ID: json.RawMessage(`"Ada"`)})
	require.NoError(t, err)
	require.JSONEq(t, `{"name":"Ada"}`, string(res.Output))
}
