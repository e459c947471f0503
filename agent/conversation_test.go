package agent_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/loomwork/loom/agent"
	"github.com/loomwork/loom/agent/agentrt"
	"github.com/loomwork/loom/internal/testkit"
	"github.com/loomwork/loom/model"
	"github.com/loomwork/loom/model/modeltest"
)

// aiWithNestedTool returns an AI agent named name whose model (m) calls
// its tool "inner" once and answers, and the model of that nested AI tool
// (sub), so a test can read what each was sent.
func aiWithNestedTool(t *testing.T, name string) (a agent.Agent, m, sub *modeltest.Scripted) {
	t.Helper()
	sub = modeltest.New(t, modeltest.Text("a fact"))
	inner := testkit.NewAI(t, agent.AIConfig{Name: "inner", Instructions: "Be brief.", Model: sub})
	m = modeltest.New(t, modeltest.ToolCalls(modeltest.Call("c1", "inner", `{"message":"a fact?"}`)), modeltest.Text("Ada"))
	return testkit.NewAI(t, agent.AIConfig{Name: name, Instructions: "Be kind.", Model: m, Tools: []agent.Agent{inner}}), m, sub
}

// rolesOf lists the roles of msgs in order.
func rolesOf(msgs []model.Message) []model.Role {
	roles := make([]model.Role, len(msgs))
	for i, msg := range msgs {
		roles[i] = msg.Role
	}
	return roles
}

// TestChildWithHistory: a composite hands its AI child the conversation as
// an argument; the child sends it between its instructions and input, a
// child started with Child does not get it, and neither do the runs
// nested inside the child.
func TestChildWithHistory(t *testing.T) {
	hist := []model.Message{model.UserMessage("my name is Ada"), model.AssistantMessage("hello Ada")}
	cases := []struct {
		name   string
		handed bool
		roles  []model.Role
	}{
		{"handed", true, []model.Role{model.RoleSystem, model.RoleUser, model.RoleAssistant, model.RoleUser}},
		{"not handed", false, []model.Role{model.RoleSystem, model.RoleUser}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			child, m, sub := aiWithNestedTool(t, "child")
			parent := testAgent{name: "parent", body: func(ctx context.Context, r *agent.Run) (json.RawMessage, error) {
				var end agent.Event
				var err error
				if tc.handed {
					end, err = agentrt.ChildWithHistory(ctx, r, child, r.Input, hist)
				} else {
					end, err = agentrt.Child(ctx, r, child, r.Input)
				}
				return end.Output, err
			}}
			_, err := agent.Invoke(t.Context(), parent, "what is my name?")
			require.NoError(t, err)
			msgs := m.Request(0).Messages
			require.Equal(t, tc.roles, rolesOf(msgs))
			if tc.handed {
				require.Equal(t, "my name is Ada", msgs[1].Text())
			}
			require.Len(t, sub.Request(0).Messages, 2, "the tool nested in the child gets no history")
		})
	}
}

// TestEnvHistoryIsTheRootRuns: Env.History is handed to the root run
// started beneath the context, not to the runs nested in it; an empty
// History set lower down hands none, nil keeps the one set higher up.
func TestEnvHistoryIsTheRootRuns(t *testing.T) {
	hist := []model.Message{model.UserMessage("my name is Ada"), model.AssistantMessage("hello Ada")}
	cases := []struct {
		name  string
		envs  []agent.Env
		roles []model.Role
	}{
		{"set", []agent.Env{{History: hist}}, []model.Role{model.RoleSystem, model.RoleUser, model.RoleAssistant, model.RoleUser}},
		{"nil keeps it", []agent.Env{{History: hist}, {History: nil}}, []model.Role{model.RoleSystem, model.RoleUser, model.RoleAssistant, model.RoleUser}},
		{"empty hands none", []agent.Env{{History: hist}, {History: []model.Message{}}}, []model.Role{model.RoleSystem, model.RoleUser}},
		{"none", nil, []model.Role{model.RoleSystem, model.RoleUser}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			root, m, sub := aiWithNestedTool(t, "root")
			ctx := t.Context()
			for _, env := range tc.envs {
				ctx = agent.WithEnv(ctx, env)
			}
			_, err := agent.Invoke(ctx, root, "what is my name?")
			require.NoError(t, err)
			msgs := m.Request(0).Messages
			require.Equal(t, tc.roles, rolesOf(msgs))
			require.Len(t, sub.Request(0).Messages, 2, "the tool nested in the root run gets no history")
		})
	}
}
