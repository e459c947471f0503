package temporal_test

import (
	"context"
	"encoding/json"
	"log/slog"
	"os"
	"sync/atomic"
	"testing"
	"time"

	"github.com/loomwork/loom/agent"
	"github.com/loomwork/loom/model"
	lt "github.com/loomwork/loom/temporal"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/log"
	"go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/worker"
)

// newEnv returns a test workflow environment whose worker has the
// activities of the fake model server and the weather tool.
func newEnv(t *testing.T, f *fakeOpenAI, weatherCalls *atomic.Int32) *testsuite.TestWorkflowEnvironment {
	t.Helper()
	var s testsuite.WorkflowTestSuite
	s.SetLogger(log.NewStructuredLogger(slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))))
	env := s.NewTestWorkflowEnvironment()
	// The SDK's deadlock detector is a one-second wall-clock limit on each
	// workflow task; under -race on a loaded machine an honest task can
	// take longer. A real deadlock still ends the test at its timeout.
	env.SetWorkerOptions(worker.Options{DeadlockDetectionTimeout: time.Minute})
	acts, err := lt.NewActivities(lt.Config{
		Models: map[string]func(ctx context.Context) (model.Model, error){modelRef: f.factory()},
		Tools:  []agent.Agent{newWeather(weatherCalls)},
	})
	require.NoError(t, err)
	acts.Register(env)
	env.RegisterWorkflow(AssistantWorkflow)
	env.RegisterWorkflow(ErrorKindWorkflow)
	return env
}

var _ worker.ActivityRegistry = (*testsuite.TestWorkflowEnvironment)(nil)

func TestAILoopWithToolCalls(t *testing.T) {
	f := newFakeOpenAI(t,
		callsReply(call("c1", "add", `{"a":2,"b":3}`)),
		callsReply(call("c2", "weather", `{"city":"Paris"}`)),
		textReply("2+3 is 5 and Paris is 5 degrees."),
	)
	var weatherCalls atomic.Int32
	env := newEnv(t, f, &weatherCalls)
	env.ExecuteWorkflow(AssistantWorkflow, "add 2 and 3, then the weather in Paris")
	require.True(t, env.IsWorkflowCompleted())
	require.NoError(t, env.GetWorkflowError())
	var out string
	require.NoError(t, env.GetWorkflowResult(&out))
	require.Equal(t, "2+3 is 5 and Paris is 5 degrees.", out)
	require.Equal(t, int32(1), weatherCalls.Load(), "the activity tool ran once on the worker")

	reqs := f.requests()
	require.Len(t, reqs, 3)
	requireRole(t, reqs[0], 0, "system")
	require.Equal(t, "add 2 and 3, then the weather in Paris", lastUserText(reqs[0]))
	// The worker rebuilt the whole conversation from its store and the
	// deltas: the last request holds both tool results.
	msgs := reqs[2]["messages"].([]any)
	require.Len(t, msgs, 6, "system, user, call, result, call, result")
	require.Contains(t, msgs[3].(map[string]any)["content"], `"sum":5`)
	require.Contains(t, msgs[5].(map[string]any)["content"], `"temp":5`)
}

func TestParallelToolCalls(t *testing.T) {
	f := newFakeOpenAI(t,
		callsReply(
			call("c1", "weather", `{"city":"Oslo"}`),
			call("c2", "weather", `{"city":"Lisbon"}`),
			call("c3", "add", `{"a":1,"b":1}`),
		),
		textReply("done"),
	)
	var weatherCalls atomic.Int32
	env := newEnv(t, f, &weatherCalls)
	env.ExecuteWorkflow(AssistantWorkflow, "weather in Oslo and Lisbon")
	require.NoError(t, env.GetWorkflowError())
	require.Equal(t, int32(2), weatherCalls.Load())
	msgs := f.requests()[1]["messages"].([]any)
	require.Len(t, msgs, 6)
	// Results come back in the order of the calls, whatever order the
	// activities finished in.
	for i, want := range []string{`"city":"Oslo"`, `"city":"Lisbon"`, `"sum":2`} {
		m := msgs[3+i].(map[string]any)
		require.Equal(t, "tool", m["role"])
		require.Contains(t, m["content"], want)
	}
}

func TestSignalApprovalAfterAnHour(t *testing.T) {
	f := newFakeOpenAI(t,
		callsReply(call("c1", "transfer", `{"a":100,"b":0}`)),
		textReply("Transfer done."),
	)
	env := newEnv(t, f, nil)
	var pending []agent.Question
	env.RegisterDelayedCallback(func() {
		v, err := env.QueryWorkflow(lt.StatusQuery, 0)
		require.NoError(t, err)
		var st lt.Status
		require.NoError(t, v.Get(&st))
		pending = st.Pending
		require.Len(t, pending, 1)
		require.Equal(t, "approval", pending[0].Kind)
		require.JSONEq(t, `{"a":100,"b":0}`, string(pending[0].Payload))
		require.NotEmpty(t, st.Events)
		require.Equal(t, agent.EventRunStart, st.Events[0].Kind)
		require.Equal(t, "default-test-workflow-id", st.Events[0].RunID, "the root run's id is the workflow id")
		// A query from the cursor returns only the events since.
		v, err = env.QueryWorkflow(lt.StatusQuery, st.Next)
		require.NoError(t, err)
		var since lt.Status
		require.NoError(t, v.Get(&since))
		require.Empty(t, since.Events)
		require.Equal(t, st.Next, since.Next)
		// An answer that does not match the schema is dropped.
		env.SignalWorkflow(lt.AnswerSignal, lt.Answer{QuestionID: pending[0].ID, Answer: json.RawMessage(`{"approved":"yes"}`)})
	}, time.Hour)
	env.RegisterDelayedCallback(func() {
		v, err := env.QueryWorkflow(lt.StatusQuery, 0)
		require.NoError(t, err)
		var st lt.Status
		require.NoError(t, v.Get(&st))
		require.Len(t, st.Pending, 1, "the invalid answer was dropped")
		env.SignalWorkflow(lt.AnswerSignal, lt.Answer{QuestionID: pending[0].ID, Answer: json.RawMessage(`{"approved":true}`)})
	}, time.Hour+time.Minute)
	start := env.Now()
	env.ExecuteWorkflow(AssistantWorkflow, "send 100")
	require.NoError(t, env.GetWorkflowError())
	var out string
	require.NoError(t, env.GetWorkflowResult(&out))
	require.Equal(t, "Transfer done.", out)
	require.GreaterOrEqual(t, env.Now().Sub(start), time.Hour, "the workflow waited an hour of skipped time")
	reqs := f.requests()
	require.Len(t, reqs, 2, "the model call made before the question was not repeated on resume")
	msgs := reqs[1]["messages"].([]any)
	require.Contains(t, msgs[len(msgs)-1].(map[string]any)["content"], "sent 100")
}

func TestActivityRetriesScripted503(t *testing.T) {
	f := newFakeOpenAI(t,
		reply{status: 503, header: map[string]string{"Retry-After": "2"}},
		textReply("recovered"),
	)
	env := newEnv(t, f, nil)
	start := env.Now()
	env.ExecuteWorkflow(ErrorKindWorkflow, "hi")
	require.NoError(t, env.GetWorkflowError())
	var out string
	require.NoError(t, env.GetWorkflowResult(&out))
	require.Equal(t, "ok", out)
	require.Len(t, f.requests(), 2, "one failed attempt, one retry")
	require.GreaterOrEqual(t, env.Now().Sub(start), 2*time.Second, "the retry waited for Retry-After")
}

func TestNoRetryOn401(t *testing.T) {
	f := newFakeOpenAI(t, reply{status: 401}, textReply("never"))
	env := newEnv(t, f, nil)
	env.ExecuteWorkflow(ErrorKindWorkflow, "hi")
	require.NoError(t, env.GetWorkflowError())
	var out string
	require.NoError(t, env.GetWorkflowResult(&out))
	require.Contains(t, out, "auth: ", "errors.Is(err, model.ErrAuth) holds on the workflow side")
	require.Contains(t, out, "HTTP 401")
	require.Contains(t, out, "scripted HTTP 401", "the provider's message crosses the boundary")
	require.NotContains(t, out, "sk-test-key")
	require.Len(t, f.requests(), 1, "a 401 is not retried")
}

func TestAnswerUpdateRejectsInvalidAnswers(t *testing.T) {
	f := newFakeOpenAI(t,
		callsReply(call("c1", "transfer", `{"a":7,"b":0}`)),
		textReply("Transfer denied."),
	)
	env := newEnv(t, f, nil)
	env.RegisterDelayedCallback(func() {
		v, err := env.QueryWorkflow(lt.StatusQuery, 0)
		require.NoError(t, err)
		var st lt.Status
		require.NoError(t, v.Get(&st))
		require.Len(t, st.Pending, 1)
		id := st.Pending[0].ID
		env.UpdateWorkflow(lt.AnswerUpdate, "u1", &testsuite.TestUpdateCallback{
			OnReject:   func(err error) { require.ErrorContains(t, err, "invalid answer") },
			OnAccept:   func() { t.Error("an invalid answer was accepted") },
			OnComplete: func(any, error) {},
		}, lt.Answer{QuestionID: id, Answer: json.RawMessage(`{}`)})
		env.UpdateWorkflow(lt.AnswerUpdate, "u2", &testsuite.TestUpdateCallback{
			OnReject:   func(err error) { require.ErrorContains(t, err, "question not pending") },
			OnAccept:   func() { t.Error("an answer to an unknown question was accepted") },
			OnComplete: func(any, error) {},
		}, lt.Answer{QuestionID: "nope", Answer: json.RawMessage(`{"approved":true}`)})
		env.UpdateWorkflow(lt.AnswerUpdate, "u3", &testsuite.TestUpdateCallback{
			OnReject:   func(err error) { t.Errorf("a valid answer was rejected: %v", err) },
			OnAccept:   func() {},
			OnComplete: func(any, error) {},
		}, lt.Answer{QuestionID: id, Answer: json.RawMessage(`{"approved":false}`)})
	}, 24*time.Hour)
	env.ExecuteWorkflow(AssistantWorkflow, "send 7")
	require.NoError(t, env.GetWorkflowError())
	msgs := f.requests()[1]["messages"].([]any)
	require.Contains(t, msgs[len(msgs)-1].(map[string]any)["content"], "denied")
}

func TestToolFailureIsNotRetried(t *testing.T) {
	f := newFakeOpenAI(t,
		callsReply(call("c1", "weather", `{"city":""}`)),
		textReply("Which city?"),
	)
	var weatherCalls atomic.Int32
	env := newEnv(t, f, &weatherCalls)
	env.ExecuteWorkflow(AssistantWorkflow, "weather?")
	require.NoError(t, env.GetWorkflowError())
	require.Equal(t, int32(1), weatherCalls.Load(), "the tool's own failure is not retried")
	msgs := f.requests()[1]["messages"].([]any)
	require.Contains(t, msgs[len(msgs)-1].(map[string]any)["content"], "no city given", "the error went back to the model")
}
