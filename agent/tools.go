package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"

	"github.com/loomwork/loom/model"
)

// runTools runs one turn's tool calls, concurrently up to
// MaxParallelTools, and returns their results in call order. Events of the
// tool runs are passed on from this goroutine, as they happen.
func (a *AI) runTools(ctx context.Context, r *Run, calls []model.ToolCall) ([]model.ToolResult, error) {
	for i := range calls {
		if !r.Emit(Event{Kind: EventToolCall, ToolCall: &calls[i]}) {
			return nil, errStopped
		}
	}
	results := make([]model.ToolResult, len(calls))
	if len(calls) == 1 || a.cfg.MaxParallelTools == 1 {
		for i, call := range calls {
			res, _, err := a.execTool(ctx, r, call, r.Emit)
			if errors.Is(err, errStopped) || !r.Emit(Event{Kind: EventToolResult, ToolResult: &res}) {
				return nil, errStopped
			}
			if err != nil && a.cfg.FailOnToolError {
				return nil, err
			}
			results[i] = res
		}
		return results, nil
	}
	return a.runToolsConcurrently(ctx, r, calls, results)
}

// toolMsg carries a nested event or a finished call to the run's goroutine.
type toolMsg struct {
	ev   Event
	done bool
	idx  int
	res  model.ToolResult
	err  error
}

func (a *AI) runToolsConcurrently(ctx context.Context, r *Run, calls []model.ToolCall, results []model.ToolResult) ([]model.ToolResult, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	msgs := make(chan toolMsg)
	sem := make(chan struct{}, a.cfg.MaxParallelTools)
	var wg sync.WaitGroup
	for i, call := range calls {
		wg.Go(func() {
			select {
			case sem <- struct{}{}:
				defer func() { <-sem }()
			case <-ctx.Done():
				msgs <- toolMsg{done: true, idx: i, res: errorResult(call, ctx.Err()), err: ctx.Err()}
				return
			}
			emit := func(ev Event) bool {
				select {
				case msgs <- toolMsg{ev: ev}:
					return true
				case <-ctx.Done():
					return false
				}
			}
			res, _, err := a.execTool(ctx, r, call, emit)
			msgs <- toolMsg{done: true, idx: i, res: res, err: err}
		})
	}
	var failed error
	stopped := false
	for pending := len(calls); pending > 0; {
		m := <-msgs
		switch {
		case !m.done:
			if !stopped && !r.Emit(m.ev) {
				stopped = true
				cancel()
			}
		default:
			pending--
			results[m.idx] = m.res
			if stopped || errors.Is(m.err, errStopped) {
				continue
			}
			if !r.Emit(Event{Kind: EventToolResult, ToolResult: &results[m.idx]}) {
				stopped = true
				cancel()
			}
			if m.err != nil && a.cfg.FailOnToolError && failed == nil {
				failed = m.err
				cancel()
			}
		}
	}
	wg.Wait()
	if stopped {
		return nil, errStopped
	}
	if failed != nil {
		return nil, failed
	}
	return results, nil
}

// execTool runs one call and returns the result for the model, the tool's
// output, and the tool's own failure as a [*ToolError] (nil when the tool
// succeeded or when the model made the mistake: an unknown tool, arguments
// that are not JSON or fail the tool's schema). emit passes on the tool
// run's events.
func (a *AI) execTool(ctx context.Context, r *Run, call model.ToolCall, emit func(Event) bool) (model.ToolResult, json.RawMessage, error) {
	tool, ok := a.byName[call.Name]
	if !ok {
		err := fmt.Errorf("%w %q: call one of %s", ErrUnknownTool, call.Name, a.toolNames())
		return errorResult(call, err), nil, nil
	}
	if !json.Valid(call.Arguments) {
		err := fmt.Errorf("the arguments of %s are not valid JSON (%.200s): call it again with a JSON object matching its schema", call.Name, call.Arguments)
		return errorResult(call, err), nil, nil
	}
	he := HookEvent{Agent: a, RunID: r.ID, ParentID: r.ParentID, Input: call.Arguments, Call: &call}
	r.hooks.fire(ctx, pickToolStart, he)
	tctx, span := startToolSpan(ctx, &call)
	var out json.RawMessage
	var runErr error
	ended := false
	for ev, err := range tool.Run(tctx, call.Arguments) {
		if ev.Kind == EventRunEnd && ev.ParentID == r.ID {
			out, runErr, ended = ev.Output, ev.Err, true
		}
		if ev.Kind != 0 && !emit(ev) {
			runErr = errStopped
			break
		}
		if err != nil && !ended {
			runErr = err
		}
	}
	var res model.ToolResult
	var toolErr error
	switch {
	case errors.Is(runErr, errStopped):
		res, toolErr = errorResult(call, context.Canceled), errStopped
	case runErr != nil:
		res = errorResult(call, runErr)
		if !errors.Is(runErr, ErrInvalidInput) {
			toolErr = &ToolError{Tool: call.Name, CallID: call.ID, Err: runErr}
		}
	default:
		if len(out) == 0 {
			out = json.RawMessage("null")
		}
		res = model.ToolResult{CallID: call.ID, Name: call.Name, Content: out}
	}
	endToolSpan(tctx, span, &res, runErr)
	recordToolCall(ctx, call.Name, res.IsError)
	he.Output, he.Err, he.Result = res.Content, runErr, &res
	r.hooks.fire(ctx, pickToolEnd, he)
	return res, out, toolErr
}

// errorResult is the tool result that tells the model what went wrong.
func errorResult(call model.ToolCall, err error) model.ToolResult {
	b, _ := json.Marshal(map[string]string{"error": err.Error()})
	return model.ToolResult{CallID: call.ID, Name: call.Name, Content: b, IsError: true}
}
