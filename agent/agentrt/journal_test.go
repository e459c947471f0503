package agentrt_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/loomwork/loom/agent"
	"github.com/loomwork/loom/agent/agentrt"
	"github.com/stretchr/testify/require"
)

// asker asks one question in a nested run and returns the answer.
func asker(t *testing.T) agent.Agent {
	t.Helper()
	ask, err := agent.New(agent.Info{Name: "ask"}, func(ctx context.Context, r *agent.Run) (json.RawMessage, error) {
		return agent.Ask(ctx, "approval", json.RawMessage(`{"plan":"deploy"}`), json.RawMessage(`{"type":"boolean"}`))
	})
	require.NoError(t, err)
	root, err := agent.New(agent.Info{Name: "root"}, func(ctx context.Context, r *agent.Run) (json.RawMessage, error) {
		out, err := r.Call(ctx, ask, json.RawMessage(`{}`))
		if err != nil {
			return nil, err
		}
		return json.Marshal(map[string]json.RawMessage{"ok": out})
	})
	require.NoError(t, err)
	return root
}

func record(t *testing.T, ctx context.Context, a agent.Agent) ([]agent.Event, error) {
	t.Helper()
	var evs []agent.Event
	var last error
	for ev, err := range a.Run(ctx, json.RawMessage(`{}`)) {
		evs = append(evs, ev)
		if ev.Kind == agent.EventRunEnd && ev.ParentID == "" {
			last = err
		}
	}
	return evs, last
}

// TestJournalPendingAndResume: a journal of an interrupted run lists its
// question as pending until answered, names the root run, and resumes the
// run with the same root id to the answer.
func TestJournalPendingAndResume(t *testing.T) {
	a := asker(t)
	evs, err := record(t, t.Context(), a)
	require.ErrorIs(t, err, agent.ErrInterrupted)
	j := agentrt.NewJournal(evs, nil)
	require.Equal(t, evs[0].RunID, j.RootID())
	pending := j.Pending()
	require.Len(t, pending, 1)
	require.Equal(t, "approval", pending[0].Kind)
	require.Equal(t, pending, j.Questions())

	answered := agentrt.NewJournal(evs, map[string]json.RawMessage{pending[0].ID: json.RawMessage(`true`)})
	require.Empty(t, answered.Pending(), "an answered question is not pending")
	require.Len(t, answered.Questions(), 1, "Questions lists answered ones too")
	resumed, err := record(t, agentrt.WithJournal(t.Context(), answered), a)
	require.NoError(t, err)
	end := resumed[len(resumed)-1]
	require.Equal(t, evs[0].RunID, end.RunID, "the resumed root keeps its id")
	require.JSONEq(t, `{"ok":true}`, string(end.Output))

	again, err := record(t, agentrt.WithJournal(agentrt.WithJournal(t.Context(), answered), nil), a)
	require.ErrorIs(t, err, agent.ErrInterrupted, "a nil journal below one turns resuming off")
	require.NotEqual(t, evs[0].RunID, again[0].RunID)
}

// TestSkipEndedOnlyForItsOwnRun: a resumed run skips its ended steps
// through SkipEnded with its own run, and nothing moves for another run
// or outside a resumed run.
func TestSkipEndedOnlyForItsOwnRun(t *testing.T) {
	var foreign *agent.Run
	grab, err := agent.New(agent.Info{Name: "grab"}, func(ctx context.Context, r *agent.Run) (json.RawMessage, error) {
		foreign = r
		return json.RawMessage(`{}`), nil
	})
	require.NoError(t, err)
	_, err = agent.Invoke(t.Context(), grab, nil)
	require.NoError(t, err)

	steps := 0
	step, err := agent.New(agent.Info{Name: "step"}, func(ctx context.Context, r *agent.Run) (json.RawMessage, error) {
		steps++
		return json.Marshal(map[string]int{"n": steps})
	})
	require.NoError(t, err)
	type seen struct {
		foreign, own bool
		last         string
	}
	var got []seen
	a, err := agent.New(agent.Info{Name: "a"}, func(ctx context.Context, r *agent.Run) (json.RawMessage, error) {
		_, f := agentrt.SkipEnded(ctx, foreign)
		end, ok := agentrt.SkipEnded(ctx, r)
		got = append(got, seen{f, ok, string(end.Output)})
		if !ok {
			for range 2 {
				if _, err := r.Call(ctx, step, json.RawMessage(`{}`)); err != nil {
					return nil, err
				}
			}
		}
		return agent.Ask(ctx, "go_on", nil, nil)
	})
	require.NoError(t, err)
	evs, err := record(t, t.Context(), a)
	require.ErrorIs(t, err, agent.ErrInterrupted)
	j := agentrt.NewJournal(evs, map[string]json.RawMessage{agentrt.NewJournal(evs, nil).Pending()[0].ID: json.RawMessage(`{}`)})
	_, err = record(t, agentrt.WithJournal(t.Context(), j), a)
	require.NoError(t, err)
	require.Equal(t, []seen{{false, false, ""}, {false, true, `{"n":2}`}}, got, "first run, then the resume skipping both steps")
	require.Equal(t, 2, steps, "the skipped steps did not run again")
}
