package temporal

import (
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"
)

// The names of the activities [Activities.Register] registers.
const (
	ModelActivity = "loom.Model"
	ToolActivity  = "loom.Tool"
)

// The types of the application errors this package's activities fail with.
const (
	// ErrorTypeConversationMissing: the worker's [ConversationStore] does
	// not hold the conversation; the workflow resends it whole.
	ErrorTypeConversationMissing = "loom.ConversationMissing"
	// ErrorTypeModel: a model call failed; its details hold an
	// agent.ErrorRecord.
	ErrorTypeModel = "loom.ModelError"
	// ErrorTypeTool: a tool's run failed; its details hold an
	// agent.ErrorRecord.
	ErrorTypeTool = "loom.ToolError"
)

// ActivityOptions set how a [Model]'s or an [ActivityTool]'s activity is
// scheduled. Zero fields take the defaults; a negative duration is an
// error when the activity is scheduled.
type ActivityOptions struct {
	// TaskQueue is the activity's task queue (default: the workflow's).
	TaskQueue string
	// StartToCloseTimeout bounds one attempt (default 2 minutes for a
	// model call, 5 minutes for a tool).
	StartToCloseTimeout time.Duration
	// HeartbeatTimeout is how long an attempt may go without a heartbeat
	// before Temporal retries it on another worker (default 30 seconds for
	// a tool; none for a model call, whose attempt then ends only by its
	// start-to-close timeout when its worker dies). The activity
	// heartbeats at a third of it.
	HeartbeatTimeout time.Duration
	// RetryPolicy is Temporal's retry policy (default: from 1 second,
	// doubling, at most 1 minute apart, 5 attempts). Errors the activity
	// marks non-retryable (HTTP 4xx but 408, 409 and 429, a tool's own
	// failure) are never retried.
	RetryPolicy *temporal.RetryPolicy
}

// DefaultRetryPolicy is the retry policy of activities whose options set
// none.
func DefaultRetryPolicy() *temporal.RetryPolicy {
	return &temporal.RetryPolicy{
		InitialInterval:    time.Second,
		BackoffCoefficient: 2,
		MaximumInterval:    time.Minute,
		MaximumAttempts:    5,
	}
}

func (o ActivityOptions) apply(w workflow.Context, startToClose, heartbeat time.Duration) (workflow.Context, error) {
	if o.StartToCloseTimeout < 0 || o.HeartbeatTimeout < 0 {
		return nil, errNegative
	}
	ao := workflow.ActivityOptions{
		TaskQueue:           o.TaskQueue,
		StartToCloseTimeout: startToClose,
		HeartbeatTimeout:    heartbeat,
		RetryPolicy:         o.RetryPolicy,
	}
	if o.StartToCloseTimeout > 0 {
		ao.StartToCloseTimeout = o.StartToCloseTimeout
	}
	if o.HeartbeatTimeout > 0 {
		ao.HeartbeatTimeout = o.HeartbeatTimeout
	}
	if ao.RetryPolicy == nil {
		ao.RetryPolicy = DefaultRetryPolicy()
	}
	return workflow.WithActivityOptions(w, ao), nil
}
