package engine_test

import (
	"context"
	"strconv"
	"strings"
	"testing"

	"github.com/loomwork/loom/agent"
	"github.com/loomwork/loom/engine"
	"github.com/loomwork/loom/internal/testkit"
	"github.com/loomwork/loom/model"
	"github.com/loomwork/loom/model/modeltest"
	"github.com/stretchr/testify/require"
)

func TestSessionSecondTurnCarriesFirstAsRealMessages(t *testing.T) {
	m := modeltest.New(t,
		modeltest.ToolCalls(modeltest.Call("c1", "double", `{"n":21}`)),
		modeltest.Text("It is 42."),
		modeltest.Text("You asked to double 21."),
	)
	double := testkit.Fn(t, "double", func(_ context.Context, in map[string]any) (map[string]any, error) {
		return map[string]any{"n": in["n"].(float64) * 2}, nil
	})
	coder := testkit.NewAI(t, agent.AIConfig{Name: "coder", Instructions: "Be brief.", Tools: []agent.Agent{double}})
	s := engine.New(engine.Config{Model: m}).NewSession(coder, nil)

	_, err := s.Invoke(t.Context(), "double 21")
	require.NoError(t, err)
	res, err := s.Invoke(t.Context(), "what did I ask?")
	require.NoError(t, err)
	require.Equal(t, "You asked to double 21.", res.Text())

	req := m.Request(2)
	roles := make([]model.Role, len(req.Messages))
	for i, msg := range req.Messages {
		roles[i] = msg.Role
	}
	require.Equal(t, []model.Role{model.RoleSystem, model.RoleUser, model.RoleAssistant, model.RoleTool, model.RoleAssistant, model.RoleUser}, roles)
	require.Equal(t, "Be brief.", req.Messages[0].Text(), "the system prompt holds only the instructions")
	require.Equal(t, "double 21", req.Messages[1].Text())
	require.Equal(t, []model.ToolCall{modeltest.Call("c1", "double", `{"n":21}`)}, req.Messages[2].ToolCalls())
	results := req.Messages[3].ToolResults()
	require.Len(t, results, 1)
	require.Equal(t, "c1", results[0].CallID)
	require.JSONEq(t, `{"n":42}`, string(results[0].Content))
	require.Equal(t, "It is 42.", req.Messages[4].Text())
	require.Equal(t, "what did I ask?", req.Messages[5].Text())
}

func TestSessionFailedTurnIsNotRemembered(t *testing.T) {
	m := modeltest.New(t, modeltest.Error(model.ErrServer), modeltest.Text("ok"))
	s := engine.New(engine.Config{Model: m}).NewSession(testkit.NewAI(t, agent.AIConfig{Name: "a"}), nil)
	_, err := s.Invoke(t.Context(), "first")
	require.ErrorIs(t, err, model.ErrServer)
	_, err = s.Invoke(t.Context(), "second")
	require.NoError(t, err)
	require.Len(t, m.Request(1).Messages, 1, "only the new input")
}

func TestSessionWithNonAIAgentRemembersTextTurn(t *testing.T) {
	echo := testkit.Constant(t, "echo", map[string]any{"message": "pong"})
	mem := engine.NewBuffer()
	s := engine.New(engine.Config{}).NewSession(echo, mem)
	_, err := s.Invoke(t.Context(), "ping")
	require.NoError(t, err)
	turns := mem.Turns()
	require.Len(t, turns, 1)
	require.Equal(t, []model.Message{model.UserMessage("ping"), model.AssistantMessage("pong")}, turns[0].Messages)
	require.NotEmpty(t, turns[0].RunID, "the turn is keyed by its run")
}

func TestSessionBusy(t *testing.T) {
	m := modeltest.New(t, modeltest.TextDeltas("a", "b"))
	s := engine.New(engine.Config{Model: m}).NewSession(testkit.NewAI(t, agent.AIConfig{Name: "a"}), nil)
	for _, err := range s.Run(t.Context(), "one") {
		require.NoError(t, err)
		_, err := s.Invoke(t.Context(), "two")
		require.ErrorIs(t, err, engine.ErrSessionBusy)
		break
	}
}

func turn(user, answer string) engine.Turn {
	return engine.Turn{Messages: []model.Message{model.UserMessage(user), model.AssistantMessage(answer)}}
}

func TestWindowDropsOldestTurns(t *testing.T) {
	w, err := engine.NewWindow(engine.WindowConfig{MaxTurns: 2})
	require.NoError(t, err)
	ctx := t.Context()
	for _, q := range []string{"one", "two", "three"} {
		require.NoError(t, w.Add(ctx, turn(q, strings.ToUpper(q))))
	}
	msgs, err := w.Messages(ctx, nil)
	require.NoError(t, err)
	require.Equal(t, append(turn("two", "TWO").Messages, turn("three", "THREE").Messages...), msgs)
	require.NoError(t, w.Clear(ctx))
	msgs, err = w.Messages(ctx, nil)
	require.NoError(t, err)
	require.Empty(t, msgs)
}

func TestWindowTokenBudget(t *testing.T) {
	long := strings.Repeat("x", 400) // 100 tokens + 4 per message
	tests := []struct {
		name      string
		maxTokens int
		want      []string // the user texts sent
	}{
		{"no budget", 0, []string{"a", long, "b"}},
		{"room for the last two", 120, []string{long, "b"}},
		{"room for the last only", 100, []string{"b"}},
		{"room for nothing", 5, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			w, err := engine.NewWindow(engine.WindowConfig{MaxTurns: 10, MaxTokens: tc.maxTokens})
			require.NoError(t, err)
			for _, q := range []string{"a", long, "b"} {
				require.NoError(t, w.Add(t.Context(), turn(q, "ok")))
			}
			msgs, err := w.Messages(t.Context(), nil)
			require.NoError(t, err)
			var got []string
			for _, m := range msgs {
				if m.Role == model.RoleUser {
					got = append(got, m.Text())
				}
			}
			require.Equal(t, tc.want, got)
		})
	}
}

func TestWindowInSession(t *testing.T) {
	m := modeltest.New(t, modeltest.Text("1"), modeltest.Text("2"), modeltest.Text("3"))
	w, err := engine.NewWindow(engine.WindowConfig{MaxTurns: 1})
	require.NoError(t, err)
	s := engine.New(engine.Config{Model: m}).NewSession(testkit.NewAI(t, agent.AIConfig{Name: "a"}), w)
	for _, q := range []string{"one", "two", "three"} {
		_, err := s.Invoke(t.Context(), q)
		require.NoError(t, err)
	}
	msgs := m.Request(2).Messages
	require.Len(t, msgs, 3, "the window keeps only the second turn")
	require.Equal(t, "two", msgs[0].Text())
	require.Equal(t, "2", msgs[1].Text())
	require.Equal(t, "three", msgs[2].Text())
}

func TestWindowConfigErrors(t *testing.T) {
	_, err := engine.NewWindow(engine.WindowConfig{MaxTurns: -1})
	require.ErrorContains(t, err, "MaxTurns is -1; use 0 for the default (10 turns)")
	_, err = engine.NewWindow(engine.WindowConfig{MaxTurns: 1, MaxTokens: -1})
	require.ErrorContains(t, err, "MaxTokens is -1")
}

// TestWindowDefaultTurns: a zero MaxTurns keeps DefaultWindowTurns turns.
func TestWindowDefaultTurns(t *testing.T) {
	ctx := t.Context()
	w, err := engine.NewWindow(engine.WindowConfig{})
	require.NoError(t, err)
	for i := range engine.DefaultWindowTurns + 3 {
		require.NoError(t, w.Add(ctx, engine.Turn{Messages: []model.Message{model.UserMessage(strconv.Itoa(i))}}))
	}
	msgs, err := w.Messages(ctx, nil)
	require.NoError(t, err)
	require.Len(t, msgs, engine.DefaultWindowTurns)
	require.Equal(t, "3", msgs[0].Text(), "the oldest turns went")
}

func TestEstimateTokens(t *testing.T) {
	tests := []struct {
		name string
		msgs []model.Message
		want int
	}{
		{"empty", nil, 0},
		{"one short text", []model.Message{model.UserMessage("hi")}, 4 + 1},
		{"four bytes a token", []model.Message{model.UserMessage("12345678")}, 4 + 2},
		{"tool call and result", []model.Message{
			{Role: model.RoleAssistant, Parts: []model.Part{modeltest.Call("c1", "f", `{}`)}},
			model.ToolMessage(model.ToolResult{CallID: "c1", Content: []byte(`{"n":1}`)}),
		}, 4 + 2 + 4 + 3},
		{"image", []model.Message{{Role: model.RoleUser, Parts: []model.Part{model.Image{URL: "x"}}}}, 4 + 85},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			require.Equal(t, tc.want, engine.EstimateTokens(tc.msgs))
		})
	}
}
