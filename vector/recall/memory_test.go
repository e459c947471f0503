package recall_test

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/loomwork/loom/agent"
	"github.com/loomwork/loom/checkpoint"
	"github.com/loomwork/loom/checkpoint/sqlite"
	"github.com/loomwork/loom/engine"
	"github.com/loomwork/loom/model"
	"github.com/loomwork/loom/model/modeltest"
	"github.com/loomwork/loom/vector"
	"github.com/loomwork/loom/vector/recall"
	vsqlite "github.com/loomwork/loom/vector/sqlite"
)

var topics = []string{"the weather in Lisbon", "sorting algorithms", "a recipe for soup", "the history of Rome",
	"training for a marathon", "tuning a guitar", "growing tomatoes", "the rules of chess", "learning Japanese"}

// conversationTurn is turn i of a long synthetic conversation; turn 3
// holds the fact the test recalls much later.
func conversationTurn(i int) engine.Turn {
	if i == 3 {
		return engine.Turn{Messages: []model.Message{
			model.UserMessage("Please remember this: my locker combination is 4-8-15-16."),
			model.AssistantMessage("Noted: your locker combination is 4-8-15-16."),
		}}
	}
	topic := topics[i%len(topics)]
	return engine.Turn{Messages: []model.Message{
		model.UserMessage(fmt.Sprintf("Question %d: tell me something about %s.", i, topic)),
		model.AssistantMessage(fmt.Sprintf("Here is fact number %d about %s, with a few more words to make the turn longer.", i, topic)),
	}}
}

func input(text string) json.RawMessage {
	b, _ := json.Marshal(map[string]string{"message": text})
	return b
}

func containsText(msgs []model.Message, s string) bool {
	return slices.ContainsFunc(msgs, func(m model.Message) bool { return strings.Contains(m.Text(), s) })
}

func newRecall(t *testing.T, cfg recall.Config) *recall.Memory {
	t.Helper()
	m, err := recall.New(cfg)
	require.NoError(t, err)
	return m
}

// TestRecallMemoryLongSession is the acceptance test: a 200-turn session
// in which a fact from turn 3 is recalled at turn 200 within the budget,
// in this process and in a new one (a new memory on the same stores).
func TestRecallMemoryLongSession(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	sessions, err := sqlite.OpenSessions(ctx, sqlite.Config{Path: filepath.Join(dir, "sessions.db")})
	require.NoError(t, err)
	defer sessions.Close()
	e, err := vector.NewHashEmbedder(512)
	require.NoError(t, err)
	index, err := vsqlite.Open(ctx, vsqlite.Config{Path: filepath.Join(dir, "vectors.db"), MemoryConfig: vector.MemoryConfig{Embedder: e}})
	require.NoError(t, err)
	defer index.Close()

	const budget = 400
	cfg := recall.Config{Store: index, Sessions: sessions, SessionID: "user-42", Recent: 4, Recall: 2, MaxTokens: budget}
	mem := newRecall(t, cfg)
	for i := range 200 {
		require.NoError(t, mem.Add(ctx, conversationTurn(i)))
	}
	require.Equal(t, 200, index.Len())

	check := func(t *testing.T, mem *recall.Memory) {
		msgs, err := mem.Messages(ctx, input("What was my locker combination again?"))
		require.NoError(t, err)
		require.True(t, containsText(msgs, "4-8-15-16"), "the fact from turn 3 is recalled")
		require.LessOrEqual(t, engine.EstimateTokens(msgs), budget, "within the token budget")
		for i := 196; i < 200; i++ {
			require.True(t, containsText(msgs, fmt.Sprintf("Question %d:", i)), "recent turn %d is kept verbatim", i)
		}
		require.False(t, containsText(msgs, "Question 100:"), "unrelated old turns are left out")
		// Oldest first: the recalled turn precedes the recent ones.
		require.Contains(t, msgs[0].Text(), "locker combination")
		require.Equal(t, model.RoleUser, msgs[0].Role)
	}
	check(t, mem)

	// A new process: the turns come from the session store, the index from
	// the SQLite file, so nothing is embedded again.
	again := newRecall(t, cfg)
	n, err := again.Len(ctx)
	require.NoError(t, err)
	require.Equal(t, 200, n)
	check(t, again)

	// A new process whose index was in memory: the turns are indexed anew.
	fresh, err := vector.NewMemory(vector.MemoryConfig{Embedder: e})
	require.NoError(t, err)
	defer fresh.Close()
	cfg.Store = fresh
	rebuilt := newRecall(t, cfg)
	check(t, rebuilt)
	require.Equal(t, 200, fresh.Len())
}

func TestRecallMemoryBudgetAndOrder(t *testing.T) {
	ctx := context.Background()
	mem := newRecall(t, recall.Config{Store: hashMemory(t), SessionID: "s", Recent: 3, MaxTokens: 70})
	msgs, err := mem.Messages(ctx, input("anything"))
	require.NoError(t, err)
	require.Empty(t, msgs, "an empty conversation sends nothing")

	for i := range 10 {
		require.NoError(t, mem.Add(ctx, conversationTurn(i)))
	}
	msgs, err = mem.Messages(ctx, input("tell me about chess"))
	require.NoError(t, err)
	require.LessOrEqual(t, engine.EstimateTokens(msgs), 70)
	require.True(t, containsText(msgs, "Question 9:"), "the newest turn always comes first in the budget")
	require.Zero(t, len(msgs)%2, "turns are whole")

	// Without input text nothing is recalled; the recent turns still come.
	msgs, err = mem.Messages(ctx, nil)
	require.NoError(t, err)
	require.True(t, containsText(msgs, "Question 9:"))

	require.NoError(t, mem.Clear(ctx))
	n, err := mem.Len(ctx)
	require.NoError(t, err)
	require.Zero(t, n)
	msgs, err = mem.Messages(ctx, input("chess"))
	require.NoError(t, err)
	require.Empty(t, msgs)
}

func TestRecallMemoryConcurrentWriter(t *testing.T) {
	ctx := context.Background()
	sessions := checkpoint.NewMemorySessions(checkpoint.MemorySessionsConfig{})
	store := hashMemory(t)
	cfg := recall.Config{Store: store, Sessions: sessions, SessionID: "s"}
	a, b := newRecall(t, cfg), newRecall(t, cfg)
	require.NoError(t, a.Add(ctx, conversationTurn(0)))
	require.NoError(t, b.Add(ctx, conversationTurn(1)), "b reloads after a's append and appends after it")
	require.NoError(t, a.Add(ctx, conversationTurn(2)))
	raws, err := sessions.Load(ctx, "s")
	require.NoError(t, err)
	require.Len(t, raws, 3)
	require.Contains(t, string(raws[1]), "Question 1:")
}

// TestRecallMemoryInEngineSession runs a session on the engine with a
// scripted model: the request of a late turn carries the recalled early
// turn as real user and assistant messages, before the recent ones.
func TestRecallMemoryInEngineSession(t *testing.T) {
	mem := newRecall(t, recall.Config{Store: hashMemory(t), SessionID: "x", Recent: 2, Recall: 1})
	questions := []string{"My cat is called Miso.", "What is the capital of Peru?", "How tall is Everest?", "Name a prime number.", "What is my cat called?"}
	var turns []modeltest.Turn
	for range questions {
		turns = append(turns, modeltest.Text("ok"))
	}
	m := modeltest.New(t, turns...)
	a, err := agent.NewAI(agent.AIConfig{Name: "assistant"})
	require.NoError(t, err)
	s := engine.New(engine.Config{Model: m}).NewSession(a, mem)
	for _, q := range questions {
		_, err := s.Invoke(t.Context(), q)
		require.NoError(t, err)
	}
	var texts []string
	for _, msg := range m.Request(4).Messages {
		texts = append(texts, string(msg.Role)+": "+msg.Text())
	}
	require.Equal(t, []string{
		"user: My cat is called Miso.", "assistant: ok",
		"user: How tall is Everest?", "assistant: ok",
		"user: Name a prime number.", "assistant: ok",
		"user: What is my cat called?",
	}, texts)
}

func TestNewErrors(t *testing.T) {
	s := hashMemory(t)
	for _, tc := range []struct {
		cfg recall.Config
		msg string
	}{
		{recall.Config{SessionID: "x"}, "Store is nil"},
		{recall.Config{Store: s}, "SessionID is empty"},
		{recall.Config{Store: s, SessionID: "x", Recent: -1}, "Recent (-1)"},
		{recall.Config{Store: s, SessionID: "x", MaxTokens: -5}, "MaxTokens (-5)"},
	} {
		_, err := recall.New(tc.cfg)
		require.ErrorContains(t, err, tc.msg)
	}
}
