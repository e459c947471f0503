package temporal

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/loomwork/loom/agent"
	"github.com/loomwork/loom/agent/agentrt"
	"github.com/loomwork/loom/model"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/worker"
)

// ErrUnknownModel marks a model reference the worker has no factory for.
var ErrUnknownModel = errors.New("unknown model reference")

// ErrUnknownTool marks a tool the worker does not have.
var ErrUnknownTool = errors.New("unknown tool")

// Config is what a worker's activities need. It stays on the worker: no
// field enters a workflow's history.
type Config struct {
	// Models builds each model a workflow refers to ([NewModel]) by its
	// reference. A factory reads its API key on the worker, and should turn
	// the provider's own retries off (model.WithMaxRetries(0)), because
	// Temporal retries the activity.
	Models map[string]func(ctx context.Context) (model.Model, error)
	// Tools are the agents that [ActivityTool]s run, by name: sandbox
	// tools, HTTP and MCP tools, anything not pure.
	Tools []agent.Agent
	// Conversations holds the messages of model conversations between
	// calls (default: a [MemoryConversations] of this worker).
	Conversations ConversationStore
}

// Activities are the activities that run loom's model calls and tools on
// a worker.
type Activities struct {
	cfg    Config
	tools  map[string]agent.Agent
	mu     sync.Mutex
	models map[string]model.Model
}

// NewActivities returns the activities of cfg. Tools with the same name
// are an error.
func NewActivities(cfg Config) (*Activities, error) {
	a := &Activities{cfg: cfg, tools: make(map[string]agent.Agent), models: make(map[string]model.Model)}
	for _, t := range cfg.Tools {
		if t == nil {
			return nil, fmt.Errorf("%w: a nil tool in Config.Tools", agent.ErrInvalidConfig)
		}
		if _, dup := a.tools[t.Info().Name]; dup {
			return nil, fmt.Errorf("%w: two tools named %q in Config.Tools: give each a distinct name", agent.ErrInvalidConfig, t.Info().Name)
		}
		a.tools[t.Info().Name] = t
	}
	if a.cfg.Conversations == nil {
		a.cfg.Conversations = &MemoryConversations{}
	}
	return a, nil
}

// Register registers the activities on r under [ModelActivity] and
// [ToolActivity].
func (a *Activities) Register(r worker.ActivityRegistry) {
	r.RegisterActivityWithOptions(a.Model, activity.RegisterOptions{Name: ModelActivity})
	r.RegisterActivityWithOptions(a.Tool, activity.RegisterOptions{Name: ToolActivity})
}

func (a *Activities) model(ctx context.Context, ref string) (model.Model, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if m, ok := a.models[ref]; ok {
		return m, nil
	}
	f, ok := a.cfg.Models[ref]
	if !ok || f == nil {
		return nil, fmt.Errorf("%w %q: add a factory for it to the worker's Config.Models", ErrUnknownModel, ref)
	}
	m, err := f(ctx)
	if err != nil {
		return nil, fmt.Errorf("build model %q: %w", ref, err)
	}
	a.models[ref] = m
	return m, nil
}

// Model is the model activity: it rebuilds the conversation from the
// worker's store and the call's new messages, calls the model and saves
// the conversation with the answer.
func (a *Activities) Model(ctx context.Context, call ModelCall) (*ModelResult, error) {
	msgs := call.Messages
	if call.Base > 0 {
		held, ok, err := a.cfg.Conversations.Load(ctx, call.Conversation)
		if err != nil {
			return nil, temporal.NewApplicationError("load conversation "+call.Conversation+": "+err.Error(), ErrorTypeConversationMissing)
		}
		if !ok || len(held) < call.Base {
			return nil, temporal.NewNonRetryableApplicationError("conversation "+call.Conversation+" is not held by this worker", ErrorTypeConversationMissing, nil)
		}
		msgs = append(append([]model.Message(nil), held[:call.Base]...), call.Messages...)
	}
	m, err := a.model(ctx, call.Ref)
	if err != nil {
		return nil, modelFailure(err)
	}
	stop := heartbeat(ctx)
	defer stop()
	req := model.Request{Messages: msgs, Tools: call.Tools, ToolChoice: call.ToolChoice, Options: call.Options, ResponseSchema: call.ResponseSchema}
	resp, err := model.Generate(ctx, m, req)
	if err != nil {
		if ctx.Err() != nil {
			// The attempt timed out or was cancelled: Temporal decides
			// what follows, by the activity's timeouts and retry policy.
			return nil, ctx.Err()
		}
		return nil, modelFailure(err)
	}
	if err := a.cfg.Conversations.Save(ctx, call.Conversation, append(msgs, resp.Message)); err != nil {
		activity.GetLogger(ctx).Warn("save conversation", "conversation", call.Conversation, "error", err)
	}
	return &ModelResult{Message: resp.Message, Usage: resp.Usage, FinishReason: resp.FinishReason}, nil
}

// modelFailure classifies a model call's error for Temporal's retries:
// HTTP 408, 409, 429 and 5xx and network errors are retried (after the
// provider's Retry-After, when it sent one); other HTTP answers and
// configuration errors are not.
func modelFailure(err error) error {
	retry, delay := retryable(err)
	return temporal.NewApplicationErrorWithOptions(err.Error(), ErrorTypeModel, temporal.ApplicationErrorOptions{
		NonRetryable:   !retry,
		NextRetryDelay: delay,
		Details:        []any{agentrt.ErrorRecordOf(err)},
	})
}

func retryable(err error) (bool, time.Duration) {
	var api *model.APIError
	if errors.As(err, &api) {
		switch s := api.StatusCode; {
		case s == http.StatusRequestTimeout, s == http.StatusConflict, s == http.StatusTooManyRequests, s >= 500:
			return true, retryAfter(err)
		default:
			return false, 0
		}
	}
	var ne net.Error
	if errors.As(err, &ne) || errors.Is(err, context.DeadlineExceeded) {
		return true, 0
	}
	if errors.Is(err, model.ErrServer) || errors.Is(err, model.ErrRateLimited) || errors.Is(err, model.ErrTruncated) {
		return true, 0
	}
	return false, 0
}

// retryAfter returns the wait the provider asked for (Retry-After, in
// seconds, as an HTTP date or as retry-after-ms), which every provider's
// error carries as model.APIError.RetryAfter; 0 when it asked for none.
func retryAfter(err error) time.Duration {
	var ae *model.APIError
	if errors.As(err, &ae) && ae.RetryAfter > 0 {
		return ae.RetryAfter
	}
	return 0
}

// ToolCall is the input of the tool activity.
type ToolCall struct {
	Tool  string          `json:"tool"`
	Input json.RawMessage `json:"input"`
}

// Tool is the tool activity: it runs the named tool's agent on the worker,
// heartbeating while it runs. A tool's own failure (the code failed, the
// tool refused its input) is not retried; a network error or a provider's
// 5xx is.
func (a *Activities) Tool(ctx context.Context, call ToolCall) (json.RawMessage, error) {
	t, ok := a.tools[call.Tool]
	if !ok {
		err := fmt.Errorf("%w %q: add it to the worker's Config.Tools", ErrUnknownTool, call.Tool)
		return nil, temporal.NewNonRetryableApplicationError(err.Error(), ErrorTypeTool, nil, agentrt.ErrorRecordOf(err))
	}
	stop := heartbeat(ctx)
	defer stop()
	out, err := agent.Invoke(ctx, t, call.Input)
	if err != nil && ctx.Err() != nil {
		return nil, ctx.Err()
	}
	if err != nil {
		retry, delay := retryable(err)
		return nil, temporal.NewApplicationErrorWithOptions(err.Error(), ErrorTypeTool, temporal.ApplicationErrorOptions{
			NonRetryable: !retry, NextRetryDelay: delay, Details: []any{agentrt.ErrorRecordOf(err)},
		})
	}
	return out, nil
}

// heartbeat records a heartbeat at a third of the activity's heartbeat
// timeout until stop is called.
func heartbeat(ctx context.Context) (stop func()) {
	every := activity.GetInfo(ctx).HeartbeatTimeout / 3
	if every <= 0 {
		return func() {}
	}
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-ctx.Done():
				return
			case <-t.C:
				activity.RecordHeartbeat(ctx)
			}
		}
	})
	return func() {
		close(done)
		wg.Wait()
	}
}
