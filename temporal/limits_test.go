package temporal_test

import (
	"testing"
	"time"

	"github.com/loomwork/loom/model"
	lt "github.com/loomwork/loom/temporal"
	"github.com/stretchr/testify/mock"
	"github.com/stretchr/testify/require"
)

func TestTimeoutLimitKeptByWorkflowTimers(t *testing.T) {
	for _, tc := range []struct {
		name      string
		modelTook time.Duration
		want      string
	}{
		{"model answers in time", 10 * time.Minute, "ok"},
		{"model outlasts the limit", 2 * time.Hour, "timeout after 1h0m0s"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			env := newEnv(t, newFakeOpenAI(t), nil)
			env.RegisterWorkflow(TimeoutWorkflow)
			env.OnActivity(lt.ModelActivity, mock.Anything, mock.Anything).After(tc.modelTook).Return(&lt.ModelResult{
				Message: model.AssistantMessage("hi"), FinishReason: model.FinishStop,
			}, nil)
			start := env.Now()
			env.ExecuteWorkflow(TimeoutWorkflow, "hello")
			require.NoError(t, env.GetWorkflowError())
			var out string
			require.NoError(t, env.GetWorkflowResult(&out))
			require.Equal(t, tc.want, out)
			require.Less(t, env.Now().Sub(start), 2*time.Hour+time.Minute, "workflow time, not wall time")
		})
	}
}
