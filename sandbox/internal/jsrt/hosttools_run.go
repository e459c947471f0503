package jsrt

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync/atomic"
)

// ToolRun is the host side of one run's tool calls: it checks each call
// against the toolbox and the run's limits, and runs it. The in-process
// executor calls invoke from a goroutine per call; the isolated executor
// from a goroutine per call message of the worker.
type ToolRun struct {
	box       *Toolbox
	ctx       context.Context // ends with the run: later calls are refused
	resultMax int             // bytes of one argument or result
	budget    int64           // bytes of all of the run's arguments and results

	calls    atomic.Int64
	inFlight atomic.Int64
	used     atomic.Int64
}

// NewToolRun starts the host side of a run whose calls end with ctx,
// which must end when the run does.
func NewToolRun(ctx context.Context, box *Toolbox, lim Limits) *ToolRun {
	return &ToolRun{box: box, ctx: ctx, resultMax: lim.ResultBytes, budget: ioBudget(lim)}
}

// ioBudget is how many bytes of arguments and results one run may pass
// through its tool calls: a quarter of its memory limit, since a decoded
// result takes several times its JSON size in the heap.
func ioBudget(lim Limits) int64 { return lim.Memory / 4 }

// admit counts a call against the run's limits; false means the caller
// passed them, which an honest runner never does (it counts and queues
// calls itself).
func (tr *ToolRun) Admit() bool {
	lim := tr.box.limits
	if tr.calls.Add(1) > int64(lim.MaxCalls) {
		return false
	}
	if tr.inFlight.Add(1) > int64(lim.MaxInFlight) {
		tr.inFlight.Add(-1)
		return false
	}
	return true
}

// done frees the call's in-flight slot.
func (tr *ToolRun) Done() { tr.inFlight.Add(-1) }

// invoke runs one admitted call, the index-th of the run, of the tool
// named (by its JS name) with args, the JSON form of the code's argument.
// A call refused before the tool runs is reported to the toolbox's skip
// hook.
func (tr *ToolRun) Invoke(index int, name string, args json.RawMessage) (out json.RawMessage, err error) {
	ran := false
	defer func() {
		if !ran && tr.box.skip != nil {
			tr.box.skip(tr.ctx, index)
		}
	}()
	if tr.ctx.Err() != nil {
		return nil, CallErr(name, CallRefused, "the run has ended or its time ran out; no call is made after that")
	}
	t := tr.box.byJS[name]
	if t == nil {
		return nil, CallErr(name, CallInvalidArguments, "there is no such tool; the tools are %v", tr.box.jsNames())
	}
	if len(args) > tr.resultMax {
		return nil, CallErr(name, CallLimit, "the argument's JSON form is larger than %s, the limit: pass less data", FormatBytes(int64(tr.resultMax)))
	}
	if err := tr.spend(name, len(args)); err != nil {
		return nil, err
	}
	if t.check != nil {
		if msg := t.check(args); msg != "" {
			return nil, CallErr(name, CallInvalidArguments, "invalid argument %s: %s. Call it with an object that meets its signature", TruncateUTF8(string(args), 200), msg)
		}
	}
	ran = true
	out, err = safeCall(withCallIndex(tr.ctx, index), t.Call, args)
	if err != nil {
		if tr.ctx.Err() != nil {
			return nil, CallErr(name, CallRefused, "the run's time ran out or the run ended during the call (%v)", err)
		}
		return nil, CallErr(name, CallFailed, "%s", TruncateUTF8(err.Error(), 4096))
	}
	if len(out) == 0 {
		out = json.RawMessage("null")
	}
	if !json.Valid(out) {
		return nil, CallErr(name, CallFailed, "the tool returned a result that is not JSON")
	}
	if len(out) > tr.resultMax {
		return nil, CallErr(name, CallLimit, "the result's JSON form is larger than %s, the limit: ask the tool for less data", FormatBytes(int64(tr.resultMax)))
	}
	if err := tr.spend(name, len(out)); err != nil {
		return nil, err
	}
	return out, nil
}

// spend counts n bytes against the run's budget.
func (tr *ToolRun) spend(name string, n int) error {
	if tr.used.Add(int64(n)) > tr.budget {
		return CallErr(name, CallLimit, "the run's tool calls passed %s of arguments and results, the limit: make fewer or smaller calls", FormatBytes(tr.budget))
	}
	return nil
}

// safeCall calls fn, turning a panic into an error: a faulty tool never
// takes the host down.
func safeCall(ctx context.Context, fn HostFunc, args json.RawMessage) (out json.RawMessage, err error) {
	defer func() {
		if x := recover(); x != nil {
			out, err = nil, fmt.Errorf("the tool panicked: %v", x)
		}
	}()
	return fn(ctx, args)
}

// AsCallError turns any error of invoke into a *CallError.
func AsCallError(name string, err error) *CallError {
	var ce *CallError
	if errors.As(err, &ce) {
		return ce
	}
	return CallErr(name, CallFailed, "%v", err)
}

// localSpec offers b's tools to a run in this process: each call runs
// here, on its own goroutine, under ctx.
func (b *Toolbox) localSpec(ctx context.Context, lim Limits) HostSpec {
	tr := NewToolRun(ctx, b, lim)
	return HostSpec{Names: b.jsNames(), Limits: b.limits, Call: func(index int, name string, args json.RawMessage) (json.RawMessage, error) {
		if !tr.Admit() {
			if b.skip != nil {
				b.skip(ctx, index)
			}
			return nil, CallErr(name, CallLimit, "too many calls for this run")
		}
		defer tr.Done()
		return tr.Invoke(index, name, args)
	}}
}

type callIndexKey struct{}

func withCallIndex(ctx context.Context, i int) context.Context {
	return context.WithValue(ctx, callIndexKey{}, i)
}

// CallIndex is the number of the host tool call whose HostFunc received
// ctx, among the calls of its run that reached the host, from 0 in the
// order the code made them; -1 outside a call.
func CallIndex(ctx context.Context) int {
	if i, ok := ctx.Value(callIndexKey{}).(int); ok {
		return i
	}
	return -1
}
