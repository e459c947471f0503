package jsrt

import "context"

var _ ToolRunner = (*InProcess)(nil)

// RunWithTools runs code as Run does, with box's tools offered to it as
// tools.<name>(args), each call on its own goroutine of this process; a
// nil box offers none.
func (e *InProcess) RunWithTools(ctx context.Context, code string, box *Toolbox) (*Result, error) {
	if box == nil {
		return e.Run(ctx, code)
	}
	return e.RunHost(ctx, code, func(callCtx context.Context) HostSpec { return box.localSpec(callCtx, e.cfg.Limits) })
}
