package agent

import (
	"context"
	"encoding/json"
	"iter"

	"github.com/loomwork/loom/agent/internal/rtlink"
	"github.com/loomwork/loom/model"
)

// Package agentrt reaches the run-time operations below through
// rtlink.Ops: they are the plumbing of runs that compositions and engines
// use and a user does not, so agent exports none of them.
func init() { rtlink.Ops = runtimeOps{} }

// runtimeOps implements package agentrt's functions on package agent's
// internals; each method is the agentrt function of the same name.
type runtimeOps struct{}

func (runtimeOps) Execute(ctx context.Context, a Agent, input json.RawMessage, body Body) iter.Seq2[Event, error] {
	return execute(ctx, a, input, body)
}

func (runtimeOps) Emit(r *Run, ev Event) bool { return r.emit(ev) }

func (runtimeOps) Child(ctx context.Context, r *Run, child Agent, input json.RawMessage, emit func(Event) bool) (Event, error) {
	if emit == nil {
		emit = r.emit
	}
	return r.child(ctx, child, input, emit)
}

func (runtimeOps) ChildWithHistory(ctx context.Context, r *Run, child Agent, input json.RawMessage, history []model.Message) (Event, error) {
	return r.childWithHistory(ctx, child, input, history)
}

func (runtimeOps) Fan(ctx context.Context, r *Run, n, limit int, collect bool, task func(ctx context.Context, i int, emit func(Event) bool) error, skipped func(i int, cause error)) error {
	return r.fan(ctx, n, fanOptions{limit: limit, collect: collect}, task, skipped)
}

func (runtimeOps) History(r *Run) []model.Message { return r.history.msgs }

func (runtimeOps) Parent(r *Run) *Run { return r.parent }

func (runtimeOps) State(r *Run) any { return r.state }

func (runtimeOps) SetState(r *Run, s any) { r.setState(s) }

func (runtimeOps) SetResultParts(r *Run, parts []model.Part) { r.setResultParts(parts...) }

func (runtimeOps) SetMessages(r *Run, msgs []model.Message) { r.messages = msgs }

func (runtimeOps) CheckAnswer(q Question, answer json.RawMessage) error {
	return checkAnswer(q, answer)
}

func (runtimeOps) Interrupts(errs []error) *InterruptedError { return interrupts(errs...) }

func (runtimeOps) ErrorRecordOf(err error) *ErrorRecord { return errorRecordOf(err) }

func (runtimeOps) EncodeInput(input any) (json.RawMessage, error) { return encodeInput(input) }
