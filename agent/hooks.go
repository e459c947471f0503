package agent

import (
	"context"
	"encoding/json"

	"github.com/loomwork/loom/model"
)

// Hooks observe runs. Any field may be nil. Hooks run synchronously on the
// run's goroutine (tool hooks on the tool's), so they must be quick and safe
// for concurrent use when tools run in parallel.
type Hooks struct {
	// RunStart fires when a run starts, before its first event.
	RunStart func(ctx context.Context, e HookEvent)
	// RunEnd fires when a run ends, successful or not, with Output or Err.
	RunEnd func(ctx context.Context, e HookEvent)
	// Error fires when a run fails, before RunEnd.
	Error func(ctx context.Context, e HookEvent)
	// ToolStart fires before an AI agent runs a tool call, with Call.
	ToolStart func(ctx context.Context, e HookEvent)
	// ToolEnd fires after a tool call, with Call, Result and the tool's Err.
	ToolEnd func(ctx context.Context, e HookEvent)
}

// HookEvent is what a hook receives.
type HookEvent struct {
	Agent    Agent  // the agent running (for tool hooks: the AI agent)
	RunID    string // its run
	ParentID string
	Input    json.RawMessage   // the run's input, or the tool call's arguments
	Output   json.RawMessage   // RunEnd and ToolEnd: the output
	Err      error             // Error, RunEnd and ToolEnd: the failure
	Call     *model.ToolCall   // ToolStart and ToolEnd
	Result   *model.ToolResult // ToolEnd
	Usage    model.Usage       // RunEnd: the run's tokens
}

// hookSet is the hooks that apply to one run: ctx's, then the agent's own.
type hookSet []*Hooks

func (hs hookSet) fire(ctx context.Context, pick func(*Hooks) func(context.Context, HookEvent), e HookEvent) {
	for _, h := range hs {
		if f := pick(h); f != nil {
			f(ctx, e)
		}
	}
}

func pickRunStart(h *Hooks) func(context.Context, HookEvent)  { return h.RunStart }
func pickRunEnd(h *Hooks) func(context.Context, HookEvent)    { return h.RunEnd }
func pickError(h *Hooks) func(context.Context, HookEvent)     { return h.Error }
func pickToolStart(h *Hooks) func(context.Context, HookEvent) { return h.ToolStart }
func pickToolEnd(h *Hooks) func(context.Context, HookEvent)   { return h.ToolEnd }
