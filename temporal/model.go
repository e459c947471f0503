package temporal

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"strings"
	"time"

	"github.com/loomwork/loom/model"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"
)

// ModelCall is the input of the model activity: what the workflow's
// history holds for one model call. Messages are only those the worker's
// conversation store does not hold yet: Conversation names the
// conversation and Base says how many of its messages come first.
type ModelCall struct {
	Ref            string                `json:"ref"`
	Conversation   string                `json:"conversation"`
	Base           int                   `json:"base,omitempty"`
	Messages       []model.Message       `json:"messages"`
	Tools          []model.Tool          `json:"tools,omitempty"`
	ToolChoice     model.ToolChoice      `json:"tool_choice,omitzero"`
	Options        model.Options         `json:"options,omitzero"`
	ResponseSchema *model.ResponseSchema `json:"response_schema,omitempty"`
}

// ModelResult is the output of the model activity.
type ModelResult struct {
	Message      model.Message      `json:"message"`
	Usage        model.Usage        `json:"usage"`
	FinishReason model.FinishReason `json:"finish_reason,omitempty"`
}

// Model is a [model.Model] whose calls run as activities. It must be
// called with a ctx from [Context]. Stream makes one activity call and
// yields the whole answer once it arrives: the text comes in one chunk, not
// token by token.
type Model struct {
	ref, provider, name string
	opts                ActivityOptions
}

// NewModel returns the model that ref names on the worker: ref is a key of
// [Activities].Models, by convention "provider:name" (as
// "openai:gpt-4o-mini"), which Provider and Name report.
func NewModel(ref string, opts ActivityOptions) *Model {
	provider, name, ok := strings.Cut(ref, ":")
	if !ok {
		provider, name = "temporal", ref
	}
	return &Model{ref: ref, provider: provider, name: name, opts: opts}
}

// Provider returns the part of the reference before ':'.
func (m *Model) Provider() string { return m.provider }

// Name returns the part of the reference after ':'.
func (m *Model) Name() string { return m.name }

// Stream runs the call as an activity and yields its answer.
func (m *Model) Stream(ctx context.Context, req model.Request) iter.Seq2[model.Chunk, error] {
	return func(yield func(model.Chunk, error) bool) {
		res, err := m.call(ctx, req)
		if err != nil {
			yield(model.Chunk{}, err)
			return
		}
		for _, c := range chunksOf(res) {
			if !yield(c, nil) {
				return
			}
		}
	}
}

func (m *Model) call(ctx context.Context, req model.Request) (*ModelResult, error) {
	b, err := bridgeFrom(ctx)
	if err != nil {
		return nil, err
	}
	if err := req.Validate(); err != nil {
		return nil, err
	}
	encoded, err := encodeMessages(req.Messages)
	if err != nil {
		return nil, fmt.Errorf("%w: encode the messages: %w", model.ErrInvalidRequest, err)
	}
	conv, base := b.convs.delta(b.id+"/"+b.runID, encoded)
	call := ModelCall{
		Ref: m.ref, Conversation: conv.id, Base: base, Messages: req.Messages[base:],
		Tools: req.Tools, ToolChoice: req.ToolChoice, Options: req.Options, ResponseSchema: req.ResponseSchema,
	}
	res, err := m.run(ctx, b, call)
	var ae *temporal.ApplicationError
	if errors.As(err, &ae) && ae.Type() == ErrorTypeConversationMissing {
		call.Base, call.Messages = 0, req.Messages
		res, err = m.run(ctx, b, call)
	}
	if err != nil {
		return nil, activityError(err)
	}
	reply, err := json.Marshal(res.Message)
	if err != nil {
		return nil, fmt.Errorf("%w: encode the model's answer: %w", model.ErrInvalidRequest, err)
	}
	conv.sent = append(encoded, reply)
	return res, nil
}

// run schedules the model activity and waits for it or for ctx to end.
func (m *Model) run(ctx context.Context, b *bridge, call ModelCall) (*ModelResult, error) {
	var res ModelResult
	var err error
	var fut workflow.Future
	var cancel workflow.CancelFunc
	b.block(func(w workflow.Context) {
		w, err = m.opts.apply(w, 2*time.Minute, 0)
		if err != nil {
			return
		}
		w, cancel = workflow.WithCancel(w)
		fut = workflow.ExecuteActivity(w, ModelActivity, call)
	})
	if err != nil {
		return nil, err
	}
	if err := b.await(ctx, fut.IsReady); err != nil {
		cancel()
		return nil, err
	}
	b.block(func(w workflow.Context) { err = fut.Get(w, &res) })
	if err != nil {
		return nil, err
	}
	return &res, nil
}

// chunksOf turns a model activity's result back into chunks.
func chunksOf(res *ModelResult) []model.Chunk {
	var out []model.Chunk
	if t := res.Message.Text(); t != "" {
		out = append(out, model.Chunk{TextDelta: t})
	}
	for i, c := range res.Message.ToolCalls() {
		out = append(out, model.Chunk{ToolCall: &model.ToolCallDelta{Index: i, ID: c.ID, Name: c.Name, ArgumentsDelta: string(c.Arguments)}})
	}
	u := res.Usage
	out = append(out, model.Chunk{Usage: &u, FinishReason: res.FinishReason})
	return out
}
