package agent

import (
	"context"
	"sync/atomic"
)

// invocation is what [Invoke] keeps for one run, in one allocation: the
// context the agent runs under (the caller's, which it passes on whole:
// values, deadline and cancellation), the collector of the run's stream,
// and the [Run] of the root run that starts directly under it, which
// Execute takes rather than allocating its own.
type invocation struct {
	context.Context
	collector
	run   Run
	taken atomic.Bool // run was taken: an agent may start several root runs under ctx
}

// newRun returns the Run for a run starting under ctx beneath parent: the
// invocation's when ctx is Invoke's own and the run is its root, else a
// new one.
func newRun(ctx context.Context, parent *Run) *Run {
	if inv, ok := ctx.(*invocation); ok && parent == nil && inv.taken.CompareAndSwap(false, true) {
		return &inv.run
	}
	return new(Run)
}
