package worker

import (
	"context"

	"github.com/loomwork/loom/sandbox/internal/jsrt"
)

var _ jsrt.ToolRunner = (*Isolated)(nil)

// RunWithTools runs code in a worker as Run does, with box's tools offered
// to it as tools.<name>(args). Each call is a message over the worker's
// pipe: the worker never runs a tool, the parent does, on its own
// goroutine, after checking that the call belongs to the run in flight and
// stays within its limits; a worker that breaks those rules is killed. A
// nil box offers none.
func (e *Isolated) RunWithTools(ctx context.Context, code string, box *jsrt.Toolbox) (*jsrt.Result, error) {
	return e.run(ctx, code, box)
}
