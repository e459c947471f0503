package temporal_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/loomwork/loom/agent"
	"github.com/loomwork/loom/model"
	lt "github.com/loomwork/loom/temporal"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"
)

func TestOutsideAWorkflowContext(t *testing.T) {
	m := lt.NewModel(modelRef, lt.ActivityOptions{})
	require.Equal(t, "openai", m.Provider())
	require.Equal(t, "gpt-test", m.Name())
	_, err := model.Generate(context.Background(), m, model.Request{Messages: []model.Message{model.UserMessage("hi")}})
	require.ErrorIs(t, err, lt.ErrNotWorkflow)
	require.ErrorContains(t, err, "temporal.Context")

	_, err = agent.Invoke(context.Background(), lt.ActivityTool(newAdd(), lt.ActivityOptions{}), addIn{A: 1})
	require.ErrorIs(t, err, lt.ErrNotWorkflow)
}

// OptionsWorkflow calls a model whose activity options are given.
func OptionsWorkflow(w workflow.Context, opts lt.ActivityOptions) (string, error) {
	_, err := model.Generate(lt.Context(w), lt.NewModel(modelRef, opts), model.Request{Messages: []model.Message{model.UserMessage("hi")}})
	if errors.Is(err, lt.ErrInvalidOptions) {
		return "invalid: " + err.Error(), nil
	}
	if err != nil {
		return "", err
	}
	return "ok", nil
}

func TestActivityOptions(t *testing.T) {
	for _, tc := range []struct {
		name string
		opts lt.ActivityOptions
		want string
	}{
		{"zero takes the defaults", lt.ActivityOptions{}, "ok"},
		{"positive", lt.ActivityOptions{StartToCloseTimeout: time.Minute, HeartbeatTimeout: time.Second}, "ok"},
		{"negative timeout", lt.ActivityOptions{StartToCloseTimeout: -1}, "invalid: invalid activity options: a negative StartToCloseTimeout or HeartbeatTimeout: use 0 for the default or a positive duration"},
		{"negative heartbeat", lt.ActivityOptions{HeartbeatTimeout: -time.Second}, "invalid: invalid activity options: a negative StartToCloseTimeout or HeartbeatTimeout: use 0 for the default or a positive duration"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			env := newEnv(t, newFakeOpenAI(t, textReply("hello")), nil)
			env.RegisterWorkflow(OptionsWorkflow)
			env.ExecuteWorkflow(OptionsWorkflow, tc.opts)
			require.NoError(t, env.GetWorkflowError())
			var out string
			require.NoError(t, env.GetWorkflowResult(&out))
			require.Equal(t, tc.want, out)
		})
	}
}

func TestNewActivitiesRejectsDuplicateTools(t *testing.T) {
	_, err := lt.NewActivities(lt.Config{Tools: []agent.Agent{newAdd(), newAdd()}})
	require.ErrorIs(t, err, agent.ErrInvalidConfig)
	require.ErrorContains(t, err, `two tools named "add"`)
	_, err = lt.NewActivities(lt.Config{Tools: []agent.Agent{nil}})
	require.ErrorIs(t, err, agent.ErrInvalidConfig)
}

func TestUnknownModelIsNotRetried(t *testing.T) {
	acts, err := lt.NewActivities(lt.Config{})
	require.NoError(t, err)
	_, err = acts.Model(context.Background(), lt.ModelCall{Ref: "nope:x", Conversation: "c", Messages: []model.Message{model.UserMessage("hi")}})
	require.ErrorContains(t, err, `unknown model reference "nope:x": add a factory for it to the worker's Config.Models`)
	var ae *temporal.ApplicationError
	require.ErrorAs(t, err, &ae)
	require.True(t, ae.NonRetryable())
	require.Equal(t, lt.ErrorTypeModel, ae.Type())
}
