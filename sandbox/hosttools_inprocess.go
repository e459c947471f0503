package sandbox

import "context"

var _ ToolRunner = (*InProcess)(nil)

// RunWithTools runs code as Run does, with box's tools offered to it as
// tools.<name>(args), each call on its own goroutine of this process; a
// nil box offers none.
func (e *InProcess) RunWithTools(ctx context.Context, code string, box *Toolbox) (*Result, error) {
	if box == nil {
		return e.Run(ctx, code)
	}
	return e.run(ctx, code, func(callCtx context.Context) hostSpec { return box.localSpec(callCtx, e.cfg.limits) })
}
