package jsrt

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sync"

	"github.com/dop251/goja"
)

// HostSpec is what a run offers its code: the tools' JS names, the call
// limits, and call, which runs one call on the host and blocks until it
// ends (in process, the host tool; in a worker, a round trip over the
// pipe). index numbers the calls that leave the runtime, from 0, in the
// order the code made them.
type HostSpec struct {
	Names  []string
	Limits CallLimits
	Call   func(index int, name string, args json.RawMessage) (json.RawMessage, error)
}

// jsTools is a run's side of its tool calls. The runtime is
// single-threaded: a call starts on the run's goroutine, runs on a
// goroutine of its own, and its result comes back through done to the
// run's goroutine, which settles the call's Promise (drainTools). Only
// wakeUp may be called from other goroutines.
type jsTools struct {
	spec     HostSpec
	ctx      context.Context // the calls': ends when the run is stopped or over
	cancel   context.CancelFunc
	started  int            // calls started (the limit counts these)
	sent     int            // calls handed to the host, which numbers them
	inFlight int            // calls running on the host
	pending  int            // calls whose Promise is not settled yet
	awaited  map[string]int // the pending calls by tool name
	queue    []*jsCall      // calls waiting for an in-flight slot
	done     chan *jsCall
	wake     chan struct{}
	running  sync.WaitGroup // the dispatched calls' goroutines
}

type jsCall struct {
	index           int
	name            string
	args            json.RawMessage
	resolve, reject func(any) error
	out             json.RawMessage
	err             error
}

func newJSTools(spec HostSpec, ctx context.Context, cancel context.CancelFunc) *jsTools {
	return &jsTools{spec: spec, ctx: ctx, cancel: cancel, done: make(chan *jsCall, spec.Limits.MaxInFlight), wake: make(chan struct{}, 1)}
}

// wakeUp cancels the calls in flight and makes drainTools look at the
// run's stop reason.
func (t *jsTools) wakeUp() {
	t.cancel()
	select {
	case t.wake <- struct{}{}:
	default:
	}
}

// end cancels the calls in flight and waits for their goroutines: no
// call outlives its run. It runs on the run's goroutine, after the run.
func (t *jsTools) end() {
	t.cancel()
	t.running.Wait()
}

// installTools defines the global tools: a frozen object without a
// prototype whose properties are the host functions, and nothing else.
func (j *job) installTools() error {
	rt := j.rt
	o := rt.NewObject()
	if err := o.SetPrototype(nil); err != nil {
		return err
	}
	for _, name := range j.tools.spec.Names {
		fn := j.hostFunc(name, func(c goja.FunctionCall) goja.Value { return j.toolCall(name, c.Argument(0)) })
		if err := o.DefineDataProperty(name, fn, goja.FLAG_FALSE, goja.FLAG_FALSE, goja.FLAG_TRUE); err != nil {
			return err
		}
	}
	freeze, ok := goja.AssertFunction(rt.Get("Object").(*goja.Object).Get("freeze"))
	if !ok {
		return errors.New("tools: Object.freeze is not a function")
	}
	if _, err := freeze(goja.Undefined(), o); err != nil { // before any code of the run: the built-in
		return err
	}
	// Configurable, so that a script's own top-level let or const tools
	// shadows it rather than failing to compile.
	return rt.GlobalObject().DefineDataProperty("tools", o, goja.FLAG_FALSE, goja.FLAG_TRUE, goja.FLAG_FALSE)
}

// toolCall starts a call of the named tool and returns its Promise. Every
// failure rejects the Promise, so the code can catch it.
func (j *job) toolCall(name string, arg goja.Value) goja.Value {
	t := j.tools
	p, resolve, reject := j.rt.NewPromise()
	promise := j.rt.ToValue(p)
	fail := func(e *CallError) goja.Value {
		if err := reject(j.callErrorValue(e)); err != nil {
			panic(err) // an interrupt: keep unwinding
		}
		return promise
	}
	if t.started >= t.spec.Limits.MaxCalls {
		return fail(CallErr(name, CallLimit, "this run already started %d tool calls, the limit: make fewer calls (batch the work, or use the results you have)", t.spec.Limits.MaxCalls))
	}
	t.started++
	args, cerr := j.exportArgs(name, arg)
	if cerr != nil {
		return fail(cerr)
	}
	c := &jsCall{index: t.sent, name: name, args: args, resolve: resolve, reject: reject}
	t.sent++
	t.pending++
	if t.awaited == nil {
		t.awaited = map[string]int{}
	}
	t.awaited[name]++
	if t.inFlight < t.spec.Limits.MaxInFlight {
		t.dispatch(c)
	} else {
		t.queue = append(t.queue, c)
	}
	return promise
}

// exportArgs is the JSON form of a call's argument; no argument is {}.
func (j *job) exportArgs(name string, arg goja.Value) (json.RawMessage, *CallError) {
	if arg == nil || goja.IsUndefined(arg) {
		return json.RawMessage("{}"), nil
	}
	s, err := j.convert(j.kit.export, arg, &sink{max: j.lim.ResultBytes, maxDepth: j.lim.ResultDepth})
	switch {
	case s.err != nil:
		return nil, CallErr(name, CallLimit, "the argument cannot be sent: %s", s.err.Message)
	case err != nil:
		if isUncatchable(err) {
			panic(err)
		}
		return nil, CallErr(name, CallInvalidArguments, "the argument could not be converted to JSON: pass plain data (objects, arrays, strings, numbers, booleans)")
	}
	return json.RawMessage(s.buf), nil
}

// dispatch runs c on a goroutine of its own; its end comes back on done,
// which has room for every call in flight.
func (t *jsTools) dispatch(c *jsCall) {
	t.inFlight++
	t.running.Add(1)
	go func() {
		defer t.running.Done()
		c.out, c.err = t.spec.Call(c.index, c.name, c.args)
		t.done <- c
	}()
}

// drainTools settles the calls' Promises as the calls end, until none is
// pending, running the code they resume, or until the run is stopped.
func (j *job) drainTools() error {
	t := j.tools
	if t == nil {
		return nil
	}
	for t.pending > 0 {
		select {
		case c := <-t.done:
			t.inFlight--
			t.pending--
			for len(t.queue) > 0 && t.inFlight < t.spec.Limits.MaxInFlight {
				next := t.queue[0]
				t.queue = t.queue[1:]
				t.dispatch(next)
			}
			if j.reason.Load() == nil && t.ctx.Err() != nil {
				// The call ended with its context: the stop that ended it
				// (the time limit, the caller) is on its way.
				<-t.wake
			}
			if j.reason.Load() != nil {
				return j.stoppedWaiting() // c counts among the calls waited for
			}
			if t.awaited[c.name]--; t.awaited[c.name] == 0 {
				delete(t.awaited, c.name)
			}
			if err := j.settle(c); err != nil {
				return err
			}
		case <-t.wake:
		}
		if j.reason.Load() != nil {
			return j.stoppedWaiting()
		}
	}
	return nil
}

// stoppedWaiting is the error of a run stopped while its code waited for
// tool calls: a timeout names the calls it waited for.
func (j *job) stoppedWaiting() *Error {
	if r := j.reason.Load(); r != nil && r.kind == KindTimeout {
		if names := j.tools.waitingFor(); len(names) > 0 {
			return toolWaitTimeoutError(j.timeout, r.cause, names)
		}
	}
	return j.stoppedError()
}

// waitingFor names the tools whose calls are pending (as tools.name, in
// order, at most three, then "…"), or nil when none is or there are no
// tools.
func (t *jsTools) waitingFor() []string {
	if t == nil || len(t.awaited) == 0 {
		return nil
	}
	names := slices.Sorted(maps.Keys(t.awaited))
	out := make([]string, 0, min(len(names), 4))
	for i, n := range names {
		if i == 3 {
			out = append(out, "…")
			break
		}
		out = append(out, "tools."+n)
	}
	return out
}

// settle resolves or rejects an ended call's Promise, which runs the code
// waiting on it.
func (j *job) settle(c *jsCall) error {
	var err error
	if c.err != nil {
		err = c.reject(j.callErrorValue(AsCallError(c.name, c.err)))
	} else if v, derr := j.jsonValue(c.out); derr != nil {
		err = c.reject(j.callErrorValue(CallErr(c.name, CallLimit, "%s", derr.msg)))
	} else {
		err = c.resolve(v)
	}
	if err != nil {
		return j.runError(err)
	}
	return nil
}

// callErrorValue is the JS error a failed call rejects with: a TypeError
// for invalid arguments, a RangeError for a limit, otherwise an Error
// named ToolError; its kind property is the [CallErrorKind].
func (j *job) callErrorValue(e *CallError) *goja.Object {
	name := e.jsErrorName()
	o := j.newJSError(name, e.Message)
	if name == "Error" {
		_ = o.DefineDataProperty("name", j.rt.ToValue("ToolError"), goja.FLAG_TRUE, goja.FLAG_TRUE, goja.FLAG_FALSE)
	}
	_ = o.DefineDataProperty("kind", j.rt.ToValue(string(e.Kind)), goja.FLAG_TRUE, goja.FLAG_TRUE, goja.FLAG_FALSE)
	return o
}

// resultError is why a call's JSON result could not become a JS value. It
// holds text only, never a goja value or error: formatting it runs no
// script code, on the run's goroutine or any other.
type resultError struct{ msg string }

func (e *resultError) Error() string { return e.msg }

// notJSON is the resultError of a decoder's error, a Go error.
func notJSON(err error) *resultError {
	return &resultError{"the result is not valid JSON: " + err.Error()}
}

// jsonValue builds the JS value of a call's JSON result, nested at most
// as deep as JSON.parse allows. Properties are defined, not set, so no
// setter the code put on Object.prototype runs.
func (j *job) jsonValue(raw json.RawMessage) (goja.Value, *resultError) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	return j.decodeJSON(dec, 0)
}

func (j *job) decodeJSON(dec *json.Decoder, depth int) (goja.Value, *resultError) {
	tok, err := dec.Token()
	if err != nil {
		return nil, notJSON(err)
	}
	rt := j.rt
	switch v := tok.(type) {
	case json.Delim:
		if depth >= j.lim.Nesting {
			return nil, &resultError{fmt.Sprintf("the result is nested more than %d levels deep, the sandbox's limit", j.lim.Nesting)}
		}
		if v == '[' {
			var items []any
			for dec.More() {
				x, rerr := j.decodeJSON(dec, depth+1)
				if rerr != nil {
					return nil, rerr
				}
				items = append(items, x)
			}
			if _, err := dec.Token(); err != nil {
				return nil, notJSON(err)
			}
			return rt.NewArray(items...), nil
		}
		o := rt.NewObject()
		for dec.More() {
			kt, err := dec.Token()
			if err != nil {
				return nil, notJSON(err)
			}
			key, _ := kt.(string)
			x, rerr := j.decodeJSON(dec, depth+1)
			if rerr != nil {
				return nil, rerr
			}
			// A fresh extensible object takes any own data property; the
			// error, a goja exception, is never formatted, since its text
			// could run script code.
			if err := o.DefineDataProperty(key, x, goja.FLAG_TRUE, goja.FLAG_TRUE, goja.FLAG_TRUE); err != nil {
				return nil, &resultError{fmt.Sprintf("the result's property %q could not be defined", TruncateUTF8(key, 100))}
			}
		}
		if _, err := dec.Token(); err != nil {
			return nil, notJSON(err)
		}
		return o, nil
	case nil:
		return goja.Null(), nil
	default: // string, float64, bool
		return rt.ToValue(v), nil
	}
}
