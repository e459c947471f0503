package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"

	"github.com/loomwork/loom/internal/telemetry"
	"github.com/loomwork/loom/model"
)

// runTools runs one turn's tool calls, concurrently up to
// MaxParallelTools, and returns their results in call order. Events of the
// tool runs are passed on from this goroutine, as they happen; the results
// follow in call order once every call ended. Calls that
// ask questions are collected into one [*InterruptedError]; a call that
// halts ([Halt]) ends the run with its error.
func (a *AI) runTools(ctx context.Context, r *Run, tt *toolTable, calls []model.ToolCall) ([]model.ToolResult, error) {
	for i := range calls {
		if !r.emit(Event{Kind: EventToolCall, ToolCall: &calls[i]}) {
			return nil, errStopped
		}
	}
	results := make([]model.ToolResult, len(calls))
	errs := make([]error, len(calls))
	// A resumed run takes the recorded result of a tool run that ended
	// instead of replaying it, so that its resume reads only what came
	// after; the fan-out below numbers the tool runs from the next child.
	recorded := r.recordedResults(calls, !a.cfg.FailOnToolError)
	for i, res := range recorded {
		if res != nil && !r.skipChild(r.ID+"."+strconv.Itoa(r.children+1+i)) {
			recorded[i] = nil
		}
		if recorded[i] != nil {
			// A tool told of its runs' ends (a guarded tool counting a
			// budget) is told of a skipped run's end too, as of a
			// replayed one's.
			if eo, ok := tt.byName[calls[i].Name].(endObserver); ok {
				eo.runEnded(calls[i].Arguments, recordedToolErr(res))
			}
		}
	}
	limit := a.cfg.MaxParallelTools
	opt := fanOptions{limit: limit, collect: !a.cfg.FailOnToolError}
	err := r.fan(ctx, len(calls), opt, func(ctx context.Context, i int, emit func(Event) bool) error {
		if recorded != nil && recorded[i] != nil {
			results[i] = *recorded[i]
			return nil
		}
		res, _, err := a.execTool(ctx, r, tt, calls[i], emit)
		results[i], errs[i] = res, err
		return err
	}, func(i int, cause error) {
		results[i] = errorResult(calls[i], cause)
		errs[i] = cause
	})
	if err != nil {
		return nil, err
	}
	if err := r.settleSkips(ctx, false); err != nil {
		return nil, err
	}
	// Results are reported in call order, whatever order the calls ended
	// in, so that a run's record does not depend on scheduling.
	for i := range results {
		if isPause(errs[i]) {
			continue
		}
		if !r.emit(Event{Kind: EventToolResult, ToolResult: &results[i]}) {
			return nil, errStopped
		}
	}
	if ie := interrupts(errs...); ie != nil {
		return nil, ie
	}
	for _, err := range errs {
		var he *HaltError
		if errors.As(err, &he) {
			return nil, he
		}
	}
	if a.cfg.FailOnToolError {
		for _, err := range errs {
			if err != nil {
				return nil, err
			}
		}
	}
	return results, nil
}

// isPause reports whether err stops the calling AI run rather than going
// back to the model: a question waiting for an answer, or a halt.
func isPause(err error) bool {
	var he *HaltError
	return errors.Is(err, ErrInterrupted) || errors.As(err, &he)
}

// execTool runs one call and returns the result for the model, the tool's
// output, and the tool's own failure as a [*ToolError] (nil when the tool
// succeeded or when the model made the mistake: an unknown tool, arguments
// that are not JSON or fail the tool's schema). A tool that asks a question
// or halts returns that error as it is, with no result. emit passes on the
// tool run's events.
func (a *AI) execTool(ctx context.Context, r *Run, tt *toolTable, call model.ToolCall, emit func(Event) bool) (model.ToolResult, json.RawMessage, error) {
	tool, ok := tt.byName[call.Name]
	if !ok {
		err := fmt.Errorf("%w %q: call one of %s", ErrUnknownTool, call.Name, tt.names())
		return errorResult(call, err), nil, nil
	}
	if !json.Valid(call.Arguments) {
		err := fmt.Errorf("the arguments of %s are not valid JSON (%.200s): call it again with a JSON object matching its schema", call.Name, call.Arguments)
		return errorResult(call, err), nil, nil
	}
	he := HookEvent{Agent: a, RunID: r.ID, ParentID: r.ParentID, Input: call.Arguments, Call: &call}
	r.hooks.fire(ctx, pickToolStart, he)
	tctx, span := telemetry.StartToolSpan(ctx, telemetry.ToolCall{Name: call.Name, ID: call.ID, Arguments: call.Arguments})
	end, runErr := r.child(tctx, tool, call.Arguments, emit)
	out := end.Output
	var res model.ToolResult
	var toolErr error
	switch {
	case errors.Is(runErr, errStopped):
		res, toolErr = errorResult(call, context.Canceled), errStopped
	case isPause(runErr):
		toolErr = runErr
	case runErr != nil:
		res = errorResult(call, runErr)
		if !errors.Is(runErr, ErrInvalidInput) {
			toolErr = &ToolError{Tool: call.Name, CallID: call.ID, Err: runErr}
		}
	default:
		if len(out) == 0 {
			out = json.RawMessage("null")
		}
		res = model.ToolResult{CallID: call.ID, Name: call.Name, Content: out, Parts: end.Parts}
	}
	telemetry.EndToolSpan(tctx, span, res.Content, res.IsError, runErr)
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

// recordedToolErr is the error a recorded tool result stands for: nil for
// a result, the result's text for an error result.
func recordedToolErr(res *model.ToolResult) error {
	if !res.IsError {
		return nil
	}
	var text string
	if json.Unmarshal(res.Content, &text) != nil {
		text = string(res.Content)
	}
	return errors.New(text)
}
