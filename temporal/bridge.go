package temporal

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/loomwork/loom/agent/agentrt"
	"go.temporal.io/sdk/workflow"
)

// ErrNotWorkflow marks a workflow-side call (a [Model], an [ActivityTool])
// made with a ctx that does not come from [Context].
var ErrNotWorkflow = errors.New("not a workflow context")

// bridge holds the seams of one workflow execution. Temporal runs one
// workflow coroutine at a time and switches only where a coroutine blocks;
// every blocking call of this package goes through block, which puts the
// running coroutine's workflow.Context back in cur when it resumes, so the
// agent code (which only holds a context.Context) always reaches the
// context of the coroutine it runs on.
type bridge struct {
	cur   workflow.Context
	id    string
	runID string
	roots int
	convs conversations
}

type bridgeKey struct{}

// Context returns a context.Context on which loom runs execute as the
// workflow code of wctx: the clock is workflow.Now, the timeout limit is
// kept by workflow timers, the first root run's id is the workflow id (the
// next ones add "~2", "~3"), fan-outs (parallel tool calls, parallel steps,
// map items) start on workflow.Go and report through a queue awaited with
// workflow.Await, and spans go to the global tracer provider only while the
// workflow runs live, never while it replays (a tracer provider set on the
// returned context with agentrt.WithTracerProvider replaces that gate). [Model] and [ActivityTool] need a ctx from Context.
//
// The context is not cancelled with the workflow: cancelling a workflow
// cancels the activities it waits for, whose errors end the run.
func Context(wctx workflow.Context) context.Context {
	info := workflow.GetInfo(wctx)
	b := &bridge{cur: wctx, id: info.WorkflowExecution.ID, runID: info.WorkflowExecution.RunID}
	ctx := context.WithValue(context.Background(), bridgeKey{}, b)
	ctx = agentrt.WithClock(ctx, clock{b})
	ctx = agentrt.WithIDs(ctx, b.nextRootID)
	ctx = agentrt.WithTaskRunner(ctx, runner{b})
	ctx = withReplayGate(ctx, b)
	return agentrt.WithTelemetry(ctx, !workflow.IsReplaying(wctx))
}

func bridgeFrom(ctx context.Context) (*bridge, error) {
	if b, ok := ctx.Value(bridgeKey{}).(*bridge); ok {
		return b, nil
	}
	return nil, fmt.Errorf("%w: call the workflow's agents with a ctx made by temporal.Context(workflowCtx)", ErrNotWorkflow)
}

// block runs fn, which may block, with the running coroutine's context,
// and makes that context current again when the coroutine resumes.
func (b *bridge) block(fn func(w workflow.Context)) {
	mine := b.cur
	fn(mine)
	b.cur = mine
}

func (b *bridge) nextRootID() string {
	b.roots++
	if b.roots == 1 {
		return b.id
	}
	return b.id + "~" + strconv.Itoa(b.roots)
}

// clock is the workflow's deterministic clock; its deadlines are workflow
// timers.
type clock struct{ b *bridge }

func (c clock) Now() time.Time { return workflow.Now(c.b.cur) }

// WithTimeout returns ctx cancelled with context.DeadlineExceeded as its
// cause when a workflow timer of d fires.
func (c clock) WithTimeout(ctx context.Context, d time.Duration) (context.Context, context.CancelFunc) {
	cctx, cancel := context.WithCancelCause(ctx)
	tctx, stopTimer := workflow.WithCancel(c.b.cur)
	workflow.Go(tctx, func(w workflow.Context) {
		if err := workflow.NewTimer(w, d).Get(w, nil); err == nil {
			cancel(context.DeadlineExceeded)
		}
	})
	return cctx, func() {
		stopTimer()
		cancel(context.Canceled)
	}
}

// runner starts a fan-out's tasks as workflow coroutines.
type runner struct{ b *bridge }

func (r runner) Go(task func()) {
	workflow.Go(r.b.cur, func(w workflow.Context) {
		r.b.cur = w
		task()
	})
}

func (r runner) NewMailbox() agentrt.Mailbox { return &mailbox{b: r.b} }

// mailbox is a queue the run's coroutine awaits with workflow.Await.
type mailbox struct {
	b *bridge
	q []any
}

func (m *mailbox) Send(msg any) { m.q = append(m.q, msg) }

func (m *mailbox) Receive() any {
	m.b.block(func(w workflow.Context) {
		// A cancelled workflow still delivers every message of a fan-out,
		// so the wait is not cut short by cancellation.
		dw, _ := workflow.NewDisconnectedContext(w)
		_ = workflow.Await(dw, func() bool { return len(m.q) > 0 })
	})
	msg := m.q[0]
	m.q[0] = nil
	m.q = m.q[1:]
	return msg
}

// await blocks until done reports true or ctx ends; it returns ctx's cause
// in the latter case.
func (b *bridge) await(ctx context.Context, done func() bool) error {
	var err error
	b.block(func(w workflow.Context) {
		err = workflow.Await(w, func() bool { return done() || ctx.Err() != nil })
	})
	if err != nil {
		return err
	}
	if !done() {
		return context.Cause(ctx)
	}
	return nil
}
