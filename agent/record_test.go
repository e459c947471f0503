package agent_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"testing"
	"time"

	"github.com/loomwork/loom/agent"

	"github.com/loomwork/loom/agent/agentrt"
	"github.com/loomwork/loom/model"
	"github.com/stretchr/testify/require"
)

func TestEventJSONRoundTrip(t *testing.T) {
	at := time.Date(2026, 12, 1, 10, 0, 0, 123456789, time.UTC)
	resp := &model.Response{Message: model.AssistantMessage("hi"), Usage: model.Usage{InputTokens: 3, OutputTokens: 1}, FinishReason: model.FinishLength}
	for _, ev := range []agent.Event{
		{Kind: agent.EventRunStart, RunID: "r", Agent: "a", Seq: 1, Time: at, Input: json.RawMessage(`{"message":"x"}`)},
		{Kind: agent.EventTextDelta, RunID: "r", Agent: "a", Seq: 2, Time: at, Text: "he"},
		{Kind: agent.EventToolCall, RunID: "r", Agent: "a", Seq: 3, Time: at, ToolCall: &model.ToolCall{ID: "c", Name: "t", Arguments: json.RawMessage(`{"a":1}`)}},
		{Kind: agent.EventToolResult, RunID: "r", Agent: "a", Seq: 4, Time: at, ToolResult: &model.ToolResult{CallID: "c", Name: "t", Content: json.RawMessage(`2`), IsError: true}},
		{Kind: agent.EventUsage, RunID: "r", Agent: "a", Seq: 5, Time: at, Usage: model.Usage{InputTokens: 3}, Cost: 0.5},
		{Kind: agent.EventModelResponse, RunID: "r", Agent: "a", Seq: 6, Time: at, Response: resp, FinishReason: model.FinishLength},
		{Kind: agent.EventInterrupt, RunID: "r.1", ParentID: "r", Agent: "b", Seq: 2, Time: at, Question: &agent.Question{ID: "r.1?1", Run: "r", Kind: "approval", Payload: json.RawMessage(`{"code":"1"}`), Schema: json.RawMessage(`{"type":"object"}`)}},
		{Kind: agent.EventRunEnd, RunID: "r", Agent: "a", Seq: 7, Time: at, Replayed: true, Output: json.RawMessage(`{"message":"hi"}`), Messages: []model.Message{model.UserMessage("x")}},
	} {
		t.Run(ev.Kind.String(), func(t *testing.T) {
			b, err := json.Marshal(ev)
			require.NoError(t, err)
			var got agent.Event
			require.NoError(t, json.Unmarshal(b, &got))
			require.Equal(t, ev, got)
		})
	}
	var bad agent.Event
	require.ErrorContains(t, json.Unmarshal([]byte(`{"kind":"nope"}`), &bad), `unknown kind "nope"`)
}

func TestErrorRecordKeepsSentinelsAndTypes(t *testing.T) {
	own := errors.New("my sentinel")
	for _, tc := range []struct {
		name  string
		err   error
		is    []error
		check func(t *testing.T, got error)
	}{
		{"wrapped sentinel", fmt.Errorf("step: %w", own), []error{own}, nil},
		{"two sentinels", fmt.Errorf("%w and %w", agent.ErrNoModel, own), []error{agent.ErrNoModel, own}, nil},
		{"deadline", fmt.Errorf("x: %w", context.DeadlineExceeded), []error{context.DeadlineExceeded}, nil},
		{"limit", &agent.LimitError{Limit: agent.LimitTurns, Used: 3, Max: 2}, []error{agent.ErrLimit}, func(t *testing.T, got error) {
			var le *agent.LimitError
			require.ErrorAs(t, got, &le)
			require.Equal(t, int64(3), le.Used)
		}},
		{"interrupted", &agent.InterruptedError{Questions: []agent.Question{{ID: "q", Kind: "input"}}}, []error{agent.ErrInterrupted}, func(t *testing.T, got error) {
			var ie *agent.InterruptedError
			require.ErrorAs(t, got, &ie)
			require.Equal(t, "q", ie.Questions[0].ID)
		}},
		{"tool", &agent.ToolError{Tool: "t", CallID: "c", Err: own}, []error{own}, func(t *testing.T, got error) {
			var te *agent.ToolError
			require.ErrorAs(t, got, &te)
			require.Equal(t, "t", te.Tool)
		}},
		{"halt", agent.Halt(own), []error{own}, func(t *testing.T, got error) {
			var he *agent.HaltError
			require.ErrorAs(t, got, &he)
		}},
		// A typed error wrapped with context keeps the context's words and
		// sentinels beside the typed error: a trace read back shows what
		// the live one showed.
		{"wrapped interrupted", fmt.Errorf("guardrail g on tool_input of t: %w", fmt.Errorf("%w: %w", own, &agent.InterruptedError{Questions: []agent.Question{{ID: "q", Kind: "approval"}}})),
			[]error{agent.ErrInterrupted, own}, func(t *testing.T, got error) {
				var ie *agent.InterruptedError
				require.ErrorAs(t, got, &ie)
				require.Equal(t, "approval", ie.Questions[0].Kind)
			}},
		{"wrapped tripwire", fmt.Errorf("turn 2: %w", &agent.TripwireError{Guardrail: "g", Stage: agent.StageInput, Reason: "no"}),
			[]error{agent.ErrTripwire}, func(t *testing.T, got error) {
				var tw *agent.TripwireError
				require.ErrorAs(t, got, &tw)
				require.Equal(t, "no", tw.Reason)
			}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b, err := json.Marshal(agentrt.ErrorRecordOf(tc.err))
			require.NoError(t, err)
			var rec agent.ErrorRecord
			require.NoError(t, json.Unmarshal(b, &rec))
			got := rec.Err()
			require.Equal(t, tc.err.Error(), got.Error())
			for _, s := range tc.is {
				require.ErrorIs(t, got, s)
			}
			require.NotErrorIs(t, got, agent.ErrPanic)
			if tc.check != nil {
				tc.check(t, got)
			}
			require.Equal(t, &rec, agentrt.ErrorRecordOf(got), "a decoded error encodes to the same record")
		})
	}
	require.Nil(t, agentrt.ErrorRecordOf(nil))
	require.NoError(t, (*agent.ErrorRecord)(nil).Err())
}

func TestChildIDsAreDerivedAndFixedByTheSeams(t *testing.T) {
	ctx := agentrt.WithIDs(t.Context(), func() string { return "root" })
	at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	ctx = agentrt.WithClock(ctx, agentrt.ClockFunc(func() time.Time { return at }))
	leaf, err := agent.NewFunc("leaf", "Leaf.", func(context.Context, struct{}) (int, error) { return 1, nil })
	require.NoError(t, err)
	var ids []string
	outer := testAgent{name: "outer", body: func(ctx context.Context, r *agent.Run) (json.RawMessage, error) {
		outs, err := agentrt.Fan(ctx, r, []agentrt.Job{{Agent: leaf, Input: json.RawMessage(`{}`)}, {Agent: leaf, Input: json.RawMessage(`{}`)}}, agentrt.FanOptions{})
		if err != nil {
			return nil, err
		}
		_, err = r.Call(ctx, leaf, json.RawMessage(`{}`))
		return outs[1].End.Output, err
	}}
	for ev, err := range outer.Run(ctx, json.RawMessage(`{}`)) {
		require.NoError(t, err)
		require.Equal(t, at, ev.Time)
		if ev.Kind == agent.EventRunStart {
			ids = append(ids, ev.RunID)
		}
	}
	require.ElementsMatch(t, []string{"root", "root.1", "root.2", "root.3"}, ids)
}

type testAgent struct {
	name string
	body agent.Body
}

func (a testAgent) Info() agent.Info {
	return agent.Info{Name: a.name, Description: "test", InputSchema: json.RawMessage(`{"type":"object"}`), OutputSchema: json.RawMessage(`{}`)}
}

func (a testAgent) Run(ctx context.Context, in json.RawMessage) iter.Seq2[agent.Event, error] {
	return agentrt.Execute(ctx, a, in, a.body)
}

// Questions saved before Question had one Run decode with Run set to the
// run to resume: root_id, else run_id.
func TestQuestionDecodesOldFields(t *testing.T) {
	cases := []struct {
		name, in string
		want     agent.Question
	}{
		{"current", `{"id":"r.1?1","run":"r","kind":"input"}`, agent.Question{ID: "r.1?1", Run: "r", Kind: "input"}},
		{"run_id and root_id", `{"id":"r.1?1","run_id":"r.1","root_id":"r","kind":"input"}`, agent.Question{ID: "r.1?1", Run: "r", Kind: "input"}},
		{"run_id only", `{"id":"r?2","run_id":"r","kind":"approval"}`, agent.Question{ID: "r?2", Run: "r", Kind: "approval"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var q agent.Question
			require.NoError(t, json.Unmarshal([]byte(c.in), &q))
			require.Equal(t, c.want, q)
		})
	}
	require.Equal(t, "r.1", agent.Question{ID: "r.1?1"}.AskedBy())
	var q agent.Question
	require.Error(t, json.Unmarshal([]byte(`{"id":1}`), &q))
}
