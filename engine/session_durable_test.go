package engine_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/loomwork/loom/agent"
	"github.com/loomwork/loom/checkpoint"
	"github.com/loomwork/loom/checkpoint/sqlite"
	"github.com/loomwork/loom/engine"
	"github.com/loomwork/loom/internal/testkit"
	"github.com/loomwork/loom/model"
	"github.com/loomwork/loom/model/modeltest"
	"github.com/stretchr/testify/require"
)

// TestSessionChild is the child process of TestSessionReopensInANewProcess.
func TestSessionChild(t *testing.T) {
	turn := os.Getenv("LOOM_SESSION_TURN")
	if turn == "" {
		t.Skip("run by TestSessionReopensInANewProcess in a child process")
	}
	ctx := context.Background()
	store, err := sqlite.OpenSessions(ctx, sqlite.Config{Path: os.Getenv("LOOM_SESSION_DB")})
	require.NoError(t, err)
	defer store.Close()
	var m *modeltest.Scripted
	switch turn {
	case "1":
		m = modeltest.New(t, modeltest.Text("Nice to meet you, Ada."))
	case "2":
		m = modeltest.New(t, modeltest.Func(func(req model.Request) modeltest.Turn {
			// The first turn, from the other process, arrives as real
			// user and assistant messages before the new input.
			var got []string
			for _, msg := range req.Messages {
				got = append(got, string(msg.Role)+": "+msg.Text())
			}
			want := []string{"system: Be brief.", "user: My name is Ada.", "assistant: Nice to meet you, Ada.", "user: What is my name?"}
			if fmt.Sprint(got) != fmt.Sprint(want) {
				return modeltest.Text(fmt.Sprintf("wrong history: %q", got))
			}
			return modeltest.Text("Your name is Ada.")
		}))
	}
	a, err := agent.NewAI(agent.AIConfig{Name: "chat", Instructions: "Be brief.", Model: m})
	require.NoError(t, err)
	e := engine.New(engine.Config{Sessions: store})
	s, err := e.OpenSession("s-42", a)
	require.NoError(t, err)
	input := map[string]string{"1": "My name is Ada.", "2": "What is my name?"}[turn]
	res, err := s.Invoke(ctx, input)
	require.NoError(t, err)
	fmt.Printf("ANSWER %s\n", res.Text())
}

func TestSessionReopensInANewProcess(t *testing.T) {
	db := filepath.Join(t.TempDir(), "sessions.db")
	for _, step := range []struct{ turn, want string }{{"1", "ANSWER Nice to meet you, Ada."}, {"2", "ANSWER Your name is Ada."}} {
		cmd := testkit.Child("TestSessionChild", "LOOM_SESSION_TURN="+step.turn, "LOOM_SESSION_DB="+db)
		cmd.Stderr = nil
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, string(out))
		require.Contains(t, string(out), step.want)
	}
	store, err := sqlite.OpenSessions(t.Context(), sqlite.Config{Path: db})
	require.NoError(t, err)
	defer store.Close()
	turns, err := store.Load(t.Context(), "s-42")
	require.NoError(t, err)
	require.Len(t, turns, 2)
}

func TestStoredMemoryConflictAndClear(t *testing.T) {
	ctx := t.Context()
	store := checkpoint.NewMemorySessions(checkpoint.MemorySessionsConfig{})
	a, err := engine.NewStored(store, "s")
	require.NoError(t, err)
	b, err := engine.NewStored(store, "s")
	require.NoError(t, err)
	_, err = a.Messages(ctx, nil)
	require.NoError(t, err)
	_, err = b.Messages(ctx, nil)
	require.NoError(t, err)
	turn := engine.Turn{Messages: []model.Message{model.UserMessage("hi"), model.AssistantMessage("hello")}}
	require.NoError(t, a.Add(ctx, turn))
	require.ErrorIs(t, b.Add(ctx, turn), checkpoint.ErrConflict, "b's view is stale: it must not append blindly")
	require.NoError(t, b.Add(ctx, turn), "after the conflict b reads again and appends after a's turn")
	msgs, err := a.Messages(ctx, nil)
	require.NoError(t, err)
	require.Len(t, msgs, 2, "a keeps its own view until it reads again")
	require.NoError(t, a.Clear(ctx))
	raws, err := store.Load(ctx, "s")
	require.NoError(t, err)
	require.Empty(t, raws)
	_, err = engine.NewStored(nil, "s")
	require.ErrorIs(t, err, agent.ErrInvalidConfig)
}
