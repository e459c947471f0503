package agentrt

import (
	"context"
	"encoding/json"
	"iter"

	"github.com/loomwork/loom/agent"
	"github.com/loomwork/loom/agent/internal/rtlink"
	"github.com/loomwork/loom/model"
)

// runtime is what package agent hands this package through rtlink.Ops:
// the operations on a run's internals that this package's functions
// export. Each method is the function of the same name here.
type runtime interface {
	Execute(ctx context.Context, a agent.Agent, input json.RawMessage, body agent.Body) iter.Seq2[agent.Event, error]
	Emit(r *agent.Run, ev agent.Event) bool
	Child(ctx context.Context, r *agent.Run, child agent.Agent, input json.RawMessage, emit func(agent.Event) bool) (agent.Event, error)
	ChildWithHistory(ctx context.Context, r *agent.Run, child agent.Agent, input json.RawMessage, history []model.Message) (agent.Event, error)
	Fan(ctx context.Context, r *agent.Run, n, limit int, collect bool, task func(ctx context.Context, i int, emit func(agent.Event) bool) error, skipped func(i int, cause error)) error
	History(r *agent.Run) []model.Message
	Parent(r *agent.Run) *agent.Run
	State(r *agent.Run) any
	SetState(r *agent.Run, s any)
	SetResultParts(r *agent.Run, parts []model.Part)
	SetMessages(r *agent.Run, msgs []model.Message)
	CheckAnswer(q agent.Question, answer json.RawMessage) error
	Interrupts(errs []error) *agent.InterruptedError
	ErrorRecordOf(err error) *agent.ErrorRecord
	EncodeInput(input any) (json.RawMessage, error)
}

// rt returns package agent's run-time operations. agent sets rtlink.Ops
// while it initialises, before this package's code can run.
func rt() runtime { return rtlink.Ops.(runtime) }
