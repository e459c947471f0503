package agentrt_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/loomwork/loom/agent"
	"github.com/loomwork/loom/agent/agentrt"
	"github.com/loomwork/loom/model"
	"github.com/stretchr/testify/require"
)

// newAgent builds an agent of name whose body is body.
func newAgent(t *testing.T, name string, body agent.Body) agent.Agent {
	t.Helper()
	a, err := agent.New(agent.Info{Name: name}, body)
	require.NoError(t, err)
	return a
}

// TestRunFromInside drives every function that takes a run from a
// composition's body, and checks what each did through the run's events.
func TestRunFromInside(t *testing.T) {
	hist := []model.Message{{Role: model.RoleUser, Parts: []model.Part{model.Text{Text: "earlier"}}}}
	var seenHist []model.Message
	var childParent, rootParent *agent.Run
	child := newAgent(t, "child", func(ctx context.Context, r *agent.Run) (json.RawMessage, error) {
		seenHist, childParent = agentrt.History(r), agentrt.Parent(r)
		return json.RawMessage(`{"n":1}`), nil
	})
	var root *agent.Run
	var state any
	parent := newAgent(t, "parent", func(ctx context.Context, r *agent.Run) (json.RawMessage, error) {
		root, rootParent = r, agentrt.Parent(r)
		if !agentrt.Emit(r, agent.Event{Kind: agent.EventTextDelta, Text: "hi"}) {
			return nil, agentrt.ErrStopped
		}
		agentrt.SetState(r, "working")
		state = agentrt.State(r)
		end, err := agentrt.ChildWithHistory(ctx, r, child, json.RawMessage(`{}`), hist)
		if err != nil {
			return nil, err
		}
		agentrt.SetMessages(r, []model.Message{{Role: model.RoleAssistant, Parts: []model.Part{model.Text{Text: "done"}}}})
		agentrt.SetResultParts(r, model.Text{Text: "a part"})
		return end.Output, nil
	})
	var evs []agent.Event
	for ev, err := range parent.Run(context.Background(), json.RawMessage(`{}`)) {
		require.NoError(t, err)
		evs = append(evs, ev)
	}
	require.Nil(t, rootParent, "a root run has no parent")
	require.Same(t, root, childParent, "the child's parent is the run that started it")
	require.Equal(t, "working", state)
	require.Equal(t, hist, seenHist, "the child got the history handed to it")

	var delta, end agent.Event
	for _, ev := range evs {
		switch {
		case ev.Kind == agent.EventTextDelta:
			delta = ev
		case ev.Kind == agent.EventRunEnd && ev.RunID == root.ID:
			end = ev
		}
	}
	require.Equal(t, "hi", delta.Text)
	require.Equal(t, root.ID, delta.RunID, "an emitted event is the run's own")
	require.NotZero(t, delta.Seq)
	require.JSONEq(t, `{"n":1}`, string(end.Output))
	require.Equal(t, []model.Message{{Role: model.RoleAssistant, Parts: []model.Part{model.Text{Text: "done"}}}}, end.Messages)
	require.Equal(t, []model.Part{model.Text{Text: "a part"}}, end.Parts)
}

// TestEmitStopped: once the consumer stops reading, Emit reports it, the
// body returns ErrStopped, and nothing more is yielded.
func TestEmitStopped(t *testing.T) {
	var second bool
	var bodyErr error
	a := newAgent(t, "talker", func(ctx context.Context, r *agent.Run) (json.RawMessage, error) {
		agentrt.Emit(r, agent.Event{Kind: agent.EventTextDelta, Text: "one"})
		second = agentrt.Emit(r, agent.Event{Kind: agent.EventTextDelta, Text: "two"})
		bodyErr = agentrt.ErrStopped
		return nil, bodyErr
	})
	var kinds []agent.EventKind
	for ev := range a.Run(context.Background(), json.RawMessage(`{}`)) {
		kinds = append(kinds, ev.Kind)
		if ev.Kind == agent.EventTextDelta {
			break
		}
	}
	require.False(t, second, "Emit after the consumer stopped returns false")
	require.ErrorIs(t, bodyErr, agentrt.ErrStopped)
	require.Equal(t, []agent.EventKind{agent.EventRunStart, agent.EventTextDelta}, kinds)
}

func TestCheckAnswer(t *testing.T) {
	q := agent.Question{ID: "r?1", Kind: "approval", Schema: json.RawMessage(`{"type":"object","properties":{"ok":{"type":"boolean"}},"required":["ok"]}`)}
	for _, tc := range []struct {
		name   string
		q      agent.Question
		answer string
		want   string // "" when the answer is accepted
	}{
		{"matches", q, `{"ok":true}`, ""},
		{"any value without a schema", agent.Question{ID: "r?2", Kind: "input"}, `"anything"`, ""},
		{"not JSON", q, `{ok`, "not valid JSON"},
		{"misses a field", q, `{}`, "ok"},
		{"wrong type", q, `{"ok":"yes"}`, "boolean"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := agentrt.CheckAnswer(tc.q, json.RawMessage(tc.answer))
			if tc.want == "" {
				require.NoError(t, err)
				return
			}
			require.ErrorIs(t, err, agent.ErrInvalidAnswer)
			require.ErrorContains(t, err, tc.q.ID)
			require.ErrorContains(t, err, tc.want)
		})
	}
}

func TestInterrupts(t *testing.T) {
	q1 := agent.Question{ID: "a?1", Kind: "approval"}
	q2 := agent.Question{ID: "b?1", Kind: "input"}
	for _, tc := range []struct {
		name string
		errs []error
		want []agent.Question // nil: no interruption
	}{
		{"none", []error{nil, errors.New("failed")}, nil},
		{"one, wrapped", []error{nil, errors.Join(errors.New("step"), &agent.InterruptedError{Questions: []agent.Question{q1}})}, []agent.Question{q1}},
		{"two merged in order", []error{&agent.InterruptedError{Questions: []agent.Question{q1}}, errors.New("failed"), &agent.InterruptedError{Questions: []agent.Question{q2}}}, []agent.Question{q1, q2}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ie := agentrt.Interrupts(tc.errs...)
			if tc.want == nil {
				require.Nil(t, ie)
				return
			}
			require.NotNil(t, ie)
			require.Equal(t, tc.want, ie.Questions)
			require.ErrorIs(t, ie, agent.ErrInterrupted)
		})
	}
}

func TestErrorRecordOf(t *testing.T) {
	require.Nil(t, agentrt.ErrorRecordOf(nil))
	limit := &agent.LimitError{Limit: agent.LimitTokens, Used: 300, Max: 200}
	rec := agentrt.ErrorRecordOf(limit)
	require.Equal(t, "limit", rec.Type)
	require.Equal(t, limit.Error(), rec.Message)
	raw, err := json.Marshal(rec)
	require.NoError(t, err)
	var back agent.ErrorRecord
	require.NoError(t, json.Unmarshal(raw, &back))
	got := back.Err()
	require.ErrorIs(t, got, agent.ErrLimit, "the record's error matches the same sentinel")
	var le *agent.LimitError
	require.ErrorAs(t, got, &le)
	require.Equal(t, []any{limit.Limit, limit.Used, limit.Max}, []any{le.Limit, le.Used, le.Max})
}

func TestEncodeInput(t *testing.T) {
	for _, tc := range []struct {
		name  string
		input any
		want  string // "" when it is an error
	}{
		{"nil", nil, `{}`},
		{"string", "hello", `{"message":"hello"}`},
		{"raw JSON", json.RawMessage(`{"a":1}`), `{"a":1}`},
		{"bytes", []byte(`[1,2]`), `[1,2]`},
		{"struct", struct {
			N int `json:"n"`
		}{2}, `{"n":2}`},
		{"invalid raw JSON", json.RawMessage(`{a`), ""},
		{"unencodable", make(chan int), ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := agentrt.EncodeInput(tc.input)
			if tc.want == "" {
				require.ErrorIs(t, err, agent.ErrInvalidInput)
				return
			}
			require.NoError(t, err)
			require.JSONEq(t, tc.want, string(got))
		})
	}
}
