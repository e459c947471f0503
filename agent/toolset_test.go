package agent_test

import (
	"context"
	"encoding/json"
	"iter"
	"sync/atomic"
	"testing"

	"github.com/loomwork/loom/agent"
	"github.com/loomwork/loom/agent/agentrt"
	"github.com/loomwork/loom/internal/testkit"
	"github.com/loomwork/loom/model"
	"github.com/loomwork/loom/model/modeltest"
	"github.com/stretchr/testify/require"
)

// imageTool answers with JSON and an image part.
type imageTool struct{ name string }

func (t imageTool) Info() agent.Info {
	return agent.Info{Name: t.name, Description: "Draws.", InputSchema: json.RawMessage(`{"type":"object"}`), OutputSchema: json.RawMessage(`{}`)}
}

func (t imageTool) Run(ctx context.Context, in json.RawMessage) iter.Seq2[agent.Event, error] {
	return agentrt.Execute(ctx, t, in, func(_ context.Context, r *agent.Run) (json.RawMessage, error) {
		agentrt.SetResultParts(r, model.Text{Text: "a square"}, model.Image{Data: []byte{1, 2}, MIMEType: "image/png"})
		return json.RawMessage(`{"ok":true}`), nil
	})
}

func TestToolsetResolvedAtEachRunWithMappedNames(t *testing.T) {
	var calls atomic.Int32
	ts := agent.ToolsetFunc(func(context.Context) ([]agent.Agent, error) {
		if calls.Add(1) == 1 {
			return []agent.Agent{imageTool{name: "server.draw"}}, nil
		}
		return []agent.Agent{imageTool{name: "server.draw"}, imageTool{name: "server.erase"}}, nil
	})
	m := modeltest.New(t,
		modeltest.ToolCalls(modeltest.Call("c1", "server_draw", `{}`)),
		modeltest.Text("drawn"),
		modeltest.Text("two tools now"),
	)
	a := testkit.NewAI(t, agent.AIConfig{Name: "artist", Model: m, Toolsets: []agent.Toolset{ts}})
	out, err := agent.Invoke(t.Context(), a, "draw")
	require.NoError(t, err)
	require.JSONEq(t, `{"message":"drawn"}`, string(out))
	first := m.Request(0)
	require.Len(t, first.Tools, 1)
	require.Equal(t, "server_draw", first.Tools[0].Name, "a name with a dot is offered as a valid one")
	result := m.Request(1).Messages[len(m.Request(1).Messages)-1].ToolResults()[0]
	require.JSONEq(t, `{"ok":true}`, string(result.Content))
	require.Equal(t, []model.Part{model.Text{Text: "a square"}, model.Image{Data: []byte{1, 2}, MIMEType: "image/png"}}, result.Parts)

	_, err = agent.Invoke(t.Context(), a, "again")
	require.NoError(t, err)
	require.Len(t, m.Request(2).Tools, 2, "the second run sees the changed list")
}

func TestToolsetErrors(t *testing.T) {
	for _, tc := range []struct {
		name string
		ts   agent.Toolset
		want string
	}{
		{"listing fails", agent.ToolsetFunc(func(context.Context) ([]agent.Agent, error) { return nil, context.DeadlineExceeded }), "toolset 0: list its tools"},
		{"two tools map to one name", agent.ToolsetFunc(func(context.Context) ([]agent.Agent, error) {
			return []agent.Agent{imageTool{name: "a.b"}, imageTool{name: "a/b"}}, nil
		}), `two tools are offered as "a_b"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := testkit.NewAI(t, agent.AIConfig{Name: "x", Model: modeltest.New(t), Toolsets: []agent.Toolset{tc.ts}})
			_, err := agent.Invoke(t.Context(), a, "go")
			require.ErrorContains(t, err, tc.want)
		})
	}
}
