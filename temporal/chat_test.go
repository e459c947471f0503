package temporal_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/loomwork/loom/model"
	lt "github.com/loomwork/loom/temporal"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/workflow"
)

func newChatEnv(t *testing.T, f *fakeOpenAI) *testsuite.TestWorkflowEnvironment {
	t.Helper()
	env := newEnv(t, f, nil)
	env.RegisterWorkflow(ChatWorkflow)
	env.RegisterWorkflow(LongChatWorkflow)
	return env
}

func TestChatContinuesAsNewWithSessionSnapshot(t *testing.T) {
	f := newFakeOpenAI(t)
	f.next = func(req map[string]any) reply { return textReply("re: " + lastUserText(req)) }
	env := newChatEnv(t, f)
	for i := 1; i <= 4; i++ {
		env.RegisterDelayedCallback(func() { env.SignalWorkflow(lt.MessageSignal, fmt.Sprintf("m%d", i)) }, time.Duration(i)*time.Minute)
	}
	env.ExecuteWorkflow(ChatWorkflow, lt.ChatState{})
	var can *workflow.ContinueAsNewError
	require.True(t, errors.As(env.GetWorkflowError(), &can), "the chat continued as new after 3 turns: %v", env.GetWorkflowError())
	require.Equal(t, "ChatWorkflow", can.WorkflowType.Name)
	var st lt.ChatState
	require.NoError(t, converter.GetDefaultDataConverter().FromPayloads(can.Input, &st))
	require.Equal(t, 3, st.Turns)
	require.Len(t, st.History, 6, "three user messages and three replies")
	require.Equal(t, "re: m3", st.History[5].Text())

	// The next run starts from the snapshot: its first model call sends
	// the whole conversation so far.
	env2 := newChatEnv(t, f)
	env2.RegisterDelayedCallback(func() {
		env2.SignalWorkflow(lt.MessageSignal, "m4")
		env2.SignalWorkflow(lt.EndSignal, nil)
	}, time.Minute)
	env2.ExecuteWorkflow(ChatWorkflow, st)
	require.NoError(t, env2.GetWorkflowError())
	var final lt.ChatState
	require.NoError(t, env2.GetWorkflowResult(&final))
	require.Equal(t, 4, final.Turns)
	require.True(t, final.Ended)
	reqs := f.requests()
	require.Len(t, reqs, 4)
	msgs := reqs[3]["messages"].([]any)
	require.Len(t, msgs, 8, "system, six messages of the snapshot, the new message")
	require.Equal(t, "m4", lastUserText(reqs[3]))
}

// TestFiftyTurnChatHistorySize runs a 50-turn chat and measures what the
// model activity puts into the workflow's history: its inputs and results.
// With conversation deltas the inputs grow with the new messages only,
// where sending each call's whole conversation grows with the square of
// the turns.
func TestFiftyTurnChatHistorySize(t *testing.T) {
	const turns = 50
	answer := strings.Repeat("lorem ipsum ", 80) // about 1 KB per reply
	f := newFakeOpenAI(t)
	f.next = func(req map[string]any) reply { return textReply(answer + lastUserText(req)) }
	env := newChatEnv(t, f)
	acts, err := lt.NewActivities(lt.Config{Models: map[string]func(context.Context) (model.Model, error){modelRef: f.factory()}})
	require.NoError(t, err)
	var inBytes, outBytes, fullBytes int
	env.RegisterActivityWithOptions(func(ctx context.Context, call lt.ModelCall) (*lt.ModelResult, error) {
		in, _ := json.Marshal(call)
		inBytes += len(in)
		res, err := acts.Model(ctx, call)
		if res != nil {
			out, _ := json.Marshal(res)
			outBytes += len(out)
		}
		return res, err
	}, activity.RegisterOptions{Name: lt.ModelActivity})
	for i := 1; i <= turns; i++ {
		env.RegisterDelayedCallback(func() { env.SignalWorkflow(lt.MessageSignal, fmt.Sprintf("question %d: what next?", i)) }, time.Duration(i)*time.Minute)
	}
	env.RegisterDelayedCallback(func() { env.SignalWorkflow(lt.EndSignal, nil) }, (turns+1)*time.Minute)
	env.ExecuteWorkflow(LongChatWorkflow, lt.ChatState{})
	require.NoError(t, env.GetWorkflowError())
	var final lt.ChatState
	require.NoError(t, env.GetWorkflowResult(&final))
	require.Equal(t, turns, final.Turns)

	reqs := f.requests()
	require.Len(t, reqs, turns)
	for _, r := range reqs {
		b, _ := json.Marshal(r["messages"])
		fullBytes += len(b)
	}
	require.Len(t, reqs[turns-1]["messages"].([]any), 1+2*(turns-1)+1, "the last call saw the whole conversation")
	t.Logf("50 turns: model activity inputs %d B, results %d B; the whole conversation on every call would be %d B", inBytes, outBytes, fullBytes)
	require.Less(t, inBytes, 30_000, "inputs hold the new messages only")
	require.Less(t, inBytes+outBytes, 100_000)
	require.Greater(t, fullBytes, 20*(inBytes+outBytes), "the deltas are far smaller than whole conversations")
}
