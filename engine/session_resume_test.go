package engine_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
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

// transcript renders a request's messages as "role: text" lines, tool
// calls and results by name, so a test can compare what the model saw.
func transcript(req model.Request) []string {
	var out []string
	for _, m := range req.Messages {
		parts := []string{string(m.Role) + ":"}
		if txt := m.Text(); txt != "" {
			parts = append(parts, txt)
		}
		for _, c := range m.ToolCalls() {
			parts = append(parts, "[call "+c.Name+"]")
		}
		for _, r := range m.ToolResults() {
			parts = append(parts, "[result "+r.Name+" "+string(r.Content)+"]")
		}
		out = append(out, strings.Join(parts, " "))
	}
	return out
}

// expect is a model turn that answers answer when the request's messages
// are want, and reports the difference otherwise.
func expect(want []string, answer string) modeltest.Turn {
	return modeltest.Func(func(req model.Request) modeltest.Turn {
		if got := transcript(req); fmt.Sprint(got) != fmt.Sprint(want) {
			return modeltest.Text(fmt.Sprintf("wrong history: %q", got))
		}
		return modeltest.Text(answer)
	})
}

// deployer is an AI whose tool "deploy" asks for approval, then counts
// its effect in *effects.
func deployer(t *testing.T, m model.Model, effects *atomic.Int64) agent.Agent {
	t.Helper()
	return deployerWith(t, m, func() { effects.Add(1) })
}

// deployerWith is deployer calling effect when the deploy runs.
func deployerWith(t *testing.T, m model.Model, effect func()) agent.Agent {
	t.Helper()
	deploy := testkit.Fn(t, "deploy", func(ctx context.Context, in map[string]any) (map[string]any, error) {
		if _, err := agent.Ask(ctx, "approval", in, nil); err != nil {
			return nil, err
		}
		effect()
		return map[string]any{"deployed": in["env"]}, nil
	})
	return testkit.NewAI(t, agent.AIConfig{Name: "ops", Instructions: "Be brief.", Model: m, Tools: []agent.Agent{deploy}})
}

var (
	turn1 = []string{"system: Be brief.", "user: My name is Ada."}
	turn2 = append(append([]string{}, turn1...), "assistant: Hello Ada.", "user: Deploy to prod.")
	after = append(append([]string{}, turn2...), "assistant: [call deploy]", `tool: [result deploy {"deployed":"prod"}]`)
	turn3 = append(append([]string{}, after...), "assistant: Deployed, Ada.", "user: What did you do?")
)

// TestSessionResumeSeesTheConversation: a session's turn that waits for an
// approval is resumed through the session; the model call after the
// approval sees the whole conversation, the turn is recorded once, and the
// next turn sees every message.
func TestSessionResumeSeesTheConversation(t *testing.T) {
	for _, mem := range []struct {
		name string
		new  func() engine.Memory
	}{
		{"buffer", func() engine.Memory { return engine.NewBuffer() }},
		{"stored", func() engine.Memory {
			m, err := engine.NewStored(checkpoint.NewMemorySessions(checkpoint.MemorySessionsConfig{}), "s-1")
			require.NoError(t, err)
			return m
		}},
	} {
		t.Run(mem.name, func(t *testing.T) {
			ctx := t.Context()
			m := modeltest.New(t,
				expect(turn1, "Hello Ada."),
				modeltest.ToolCalls(modeltest.Call("c1", "deploy", `{"env":"prod"}`)),
				expect(after, "Deployed, Ada."),
				expect(turn3, "I deployed to prod."))
			var effects atomic.Int64
			e := engine.New(engine.Config{Checkpoints: checkpoint.NewMemory()})
			memory := mem.new()
			s := e.NewSession(deployer(t, m, &effects), memory)
			res, err := s.Invoke(ctx, "My name is Ada.")
			require.NoError(t, err)
			require.Equal(t, "Hello Ada.", res.Text())

			_, err = s.Invoke(ctx, "Deploy to prod.")
			var ie *agent.InterruptedError
			require.ErrorAs(t, err, &ie)
			runID := ie.Questions[0].Run

			_, err = s.Invoke(ctx, "Something else.")
			var open *engine.OpenTurnError
			require.ErrorAs(t, err, &open, "a new turn waits for the open one")
			require.Equal(t, runID, open.RunID)
			require.Len(t, open.Questions, 1)

			_, err = e.ResumeInvoke(ctx, deployer(t, m, &effects), runID, map[string]json.RawMessage{ie.Questions[0].ID: json.RawMessage(`true`)})
			require.ErrorIs(t, err, engine.ErrSessionTurn, "the engine refuses a session's turn: it would lose the history and the record")

			res, err = s.ResumeInvoke(ctx, runID, map[string]json.RawMessage{ie.Questions[0].ID: json.RawMessage(`true`)})
			require.NoError(t, err)
			require.Equal(t, "Deployed, Ada.", res.Text())
			require.Equal(t, int64(1), effects.Load())

			_, err = s.ResumeInvoke(ctx, runID, map[string]json.RawMessage{ie.Questions[0].ID: json.RawMessage(`true`)})
			require.ErrorIs(t, err, engine.ErrRunEnded, "a second approval does nothing")
			_, err = s.Continue(ctx)
			require.ErrorIs(t, err, engine.ErrNoOpenTurn)

			res, err = s.Invoke(ctx, "What did you do?")
			require.NoError(t, err)
			require.Equal(t, "I deployed to prod.", res.Text())
			msgs, err := memory.Messages(ctx, nil)
			require.NoError(t, err)
			require.Len(t, msgs, 8, "three turns (2, 4 and 2 messages), each recorded once")
			require.Equal(t, 4, m.Calls(), "no model call repeated")
		})
	}
}

// flakySessions fails the session store's appends while fail is set, as a
// process killed between a run's end and the session's append would.
type flakySessions struct {
	checkpoint.SessionStore
	fail atomic.Bool
}

func (f *flakySessions) Append(ctx context.Context, id string, after int, turns ...json.RawMessage) error {
	if f.fail.Load() && strings.Contains(string(turns[0]), `"messages"`) {
		return fmt.Errorf("disk full")
	}
	return f.SessionStore.Append(ctx, id, after, turns...)
}

// TestSessionRecordsATurnWhoseAppendWasLost: when a turn's run ended but
// its append failed (as when the process dies in between), the session's
// next call records the turn from the run's checkpoints, once, without
// running anything again.
func TestSessionRecordsATurnWhoseAppendWasLost(t *testing.T) {
	ctx := t.Context()
	sessions := &flakySessions{SessionStore: checkpoint.NewMemorySessions(checkpoint.MemorySessionsConfig{})}
	m := modeltest.New(t, expect(turn1, "Hello Ada."), modeltest.Text("Hi again."))
	var effects atomic.Int64
	e := engine.New(engine.Config{Checkpoints: checkpoint.NewMemory(), Sessions: sessions})
	s, err := e.OpenSession("s-lost", deployer(t, m, &effects))
	require.NoError(t, err)
	sessions.fail.Store(true)
	_, err = s.Invoke(ctx, "My name is Ada.")
	require.ErrorContains(t, err, "disk full")
	sessions.fail.Store(false)

	// Another process (a new session over the same stores) finishes it.
	other, err := e.OpenSession("s-lost", deployer(t, m, &effects))
	require.NoError(t, err)
	res, err := other.Continue(ctx)
	require.NoError(t, err)
	require.Equal(t, "Hello Ada.", res.Text(), "the recorded answer, not a new model call")
	require.Equal(t, 1, m.Calls())
	res, err = other.Invoke(ctx, "Hi.")
	require.NoError(t, err)
	require.Equal(t, "Hi again.", res.Text())
	require.Equal(t, append(append([]string{}, turn1...), "assistant: Hello Ada.", "user: Hi."), transcript(m.Request(1)))
	msgs, err := other.Memory().Messages(ctx, nil)
	require.NoError(t, err)
	require.Len(t, msgs, 4, "two turns, neither lost nor doubled")
}
