package agent_test

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/loomwork/loom/agent"
	"github.com/loomwork/loom/internal/testkit"
	"github.com/loomwork/loom/model/modeltest"
	"github.com/stretchr/testify/require"
)

func TestHooksFireInOrderWithPayloads(t *testing.T) {
	var mu sync.Mutex
	var log []string
	record := func(kind string) func(context.Context, agent.HookEvent) {
		return func(_ context.Context, e agent.HookEvent) {
			mu.Lock()
			defer mu.Unlock()
			s := fmt.Sprintf("%s %s in=%s", kind, e.Agent.Info().Name, e.Input)
			if e.Output != nil {
				s += " out=" + string(e.Output)
			}
			if e.Call != nil {
				s += " call=" + e.Call.ID
			}
			if e.Err != nil {
				s += " err=" + e.Err.Error()
			}
			log = append(log, s)
		}
	}
	hooks := agent.Hooks{RunStart: record("start"), RunEnd: record("end"), Error: record("error"), ToolStart: record("tool_start"), ToolEnd: record("tool_end")}
	m := modeltest.New(t, modeltest.ToolCalls(modeltest.Call("c1", "add", `{"a":1,"b":2}`)), modeltest.Text("3"))
	a := testkit.NewAI(t, agent.AIConfig{Name: "calc", Model: m, Tools: []agent.Agent{addTool(t)}})
	_, err := agent.Invoke(agent.WithEnv(t.Context(), agent.Env{Hooks: hooks}), a, "1+2")
	require.NoError(t, err)
	require.Equal(t, []string{
		`start calc in={"message":"1+2"}`,
		`tool_start calc in={"a":1,"b":2} call=c1`,
		`start add in={"a":1,"b":2}`,
		`end add in={"a":1,"b":2} out={"sum":3}`,
		`tool_end calc in={"a":1,"b":2} out={"sum":3} call=c1`,
		`end calc in={"message":"1+2"} out={"message":"3"}`,
	}, log)

	// The agent's own hooks fire too, after the context's, and Error fires
	// before RunEnd on failure.
	log = nil
	failing := testkit.NewAI(t, agent.AIConfig{Name: "nomodel", Hooks: agent.Hooks{Error: record("own_error"), RunEnd: record("own_end")}})
	_, err = agent.Invoke(agent.WithEnv(t.Context(), agent.Env{Hooks: hooks}), failing, "x")
	require.ErrorIs(t, err, agent.ErrNoModel)
	require.Len(t, log, 5)
	require.Equal(t, `start nomodel in={"message":"x"}`, log[0])
	require.Contains(t, log[1], "error nomodel")
	require.Contains(t, log[2], "own_error nomodel")
	require.Contains(t, log[3], "end nomodel")
	require.Contains(t, log[4], "own_end nomodel")
}
