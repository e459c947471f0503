package agentrt

import (
	"context"

	"github.com/loomwork/loom/agent/internal/runid"
	"github.com/loomwork/loom/internal/taskrun"
)

// WithIDs returns ctx using next to make the ids of root runs (runs with no
// parent), for fixed ids in tests or replay. A nested run's id is always
// its parent's id, a dot and its position among the parent's children
// ("r.1", "r.2", "r.2.1"), so that a replay with the same root id produces
// the same ids. By default root ids are 16 random hex digits.
func WithIDs(ctx context.Context, next func() string) context.Context {
	return runid.With(ctx, next)
}

// TaskRunner starts the concurrent tasks of a fan-out (parallel tool calls,
// parallel steps, map items, graph nodes) and gives them a mailbox to
// report to the run's goroutine. Go must run task exactly once, on some
// goroutine, and return without waiting for it. A durable engine supplies
// its own (Temporal's workflow.Go and a queue it can await); the default
// uses a go statement and a channel.
type TaskRunner = taskrun.Runner

// Mailbox carries a fan-out's messages from its tasks to the run's
// goroutine. Send never blocks for good: the run's goroutine receives every
// message until all tasks ended; Receive blocks until a message arrives.
type Mailbox = taskrun.Mailbox

// WithTaskRunner returns ctx whose fan-outs start their tasks through tr.
func WithTaskRunner(ctx context.Context, tr TaskRunner) context.Context {
	return taskrun.With(ctx, tr)
}
