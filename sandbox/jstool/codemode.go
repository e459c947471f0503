package jstool

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"sync"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"

	"github.com/loomwork/loom/agent"
	"github.com/loomwork/loom/agent/agentrt"
	"github.com/loomwork/loom/internal/flow"
	"github.com/loomwork/loom/internal/taskrun"
	"github.com/loomwork/loom/internal/telemetry"
	"github.com/loomwork/loom/sandbox"
	"github.com/loomwork/loom/sandbox/internal/jsrt"
)

// Config configures the evaluateJs tool [New] makes. The zero value is
// the plain tool, without host functions.
type Config struct {
	// Toolsets offers the tools of these toolsets (loom agents: an MCP
	// server's tools, functions, other agents) to the code as async
	// functions, tools.<JSName>(args). The toolsets are asked for their
	// tools at the start of each run of the evaluateJs tool. Each call runs
	// the tool as a nested run of that run, as a direct call from a model
	// would: its events pass through, it is traced as a span under the
	// sandbox.run span, the hooks and limits on the context apply to it, and
	// a question it asks ([agent.Ask], such as an approval) interrupts the
	// run. A nested run's context carries the snippet's deadline and ends
	// when the snippet does (its time limit, an error, its caller), so a
	// slow tool never outlasts the snippet; it is one level deeper in
	// [CallDepth], and past [MaxCallDepth] calls are refused, so code mode
	// cannot recurse without bound (the mcp package carries the depth and
	// deadline to the servers it calls). The executor must be a
	// [sandbox.ToolRunner]. The tool's description says how to call the
	// functions, not which there are: list them for the model with
	// [ResolveHostTools] and [Declarations], as codeexec does in the coder's
	// instructions.
	Toolsets []agent.Toolset
	// CallLimits bounds the tool calls of each run; zero fields take
	// their defaults, negative ones are refused.
	CallLimits sandbox.CallLimits
}

// codeModeNote tells the model how to call the offered functions.
const codeModeNote = "\n- Host functions: the global `tools` holds async functions that run tools on the host, such as `const r = await tools.get_sum({a: 2, b: 40})`; each takes one object argument and returns a Promise of the tool's JSON result. Their signatures are listed in your instructions. A call that fails rejects with an Error you can catch; calls per run are limited, so batch the work with Promise.all and compute in code."

// codeMode checks the toolsets and the executor, which must run host
// tools.
func (t *tool) codeMode() error {
	for i, ts := range t.cfg.Toolsets {
		if ts == nil {
			return fmt.Errorf("jstool: New: Config.Toolsets[%d] is nil: remove it or give a toolset", i)
		}
	}
	runner, ok := t.exec.(sandbox.ToolRunner)
	if !ok {
		return fmt.Errorf("jstool: New: Config.Toolsets needs an executor that runs host tools (a sandbox.ToolRunner, as sandbox.InProcess and sandbox.Isolated are); %T is not one", t.exec)
	}
	t.runner = runner
	return nil
}

// runCodeMode runs the input's code with the toolsets' tools offered to
// it, serving its calls as nested runs of r.
func (t *tool) runCodeMode(ctx context.Context, r *agent.Run, in Input) (Output, error) {
	q := &callQueue{box: taskrun.From(ctx).NewMailbox()}
	tools, err := ResolveHostTools(ctx, t.cfg.Toolsets, q.caller)
	if err != nil {
		return Output{}, err
	}
	box, err := sandbox.NewToolbox(tools, t.cfg.CallLimits)
	if err != nil {
		return Output{}, err
	}
	jsrt.SetSkip(box, q.skip)
	return t.execute(ctx, in, func(ctx context.Context, code string) (*sandbox.Result, error) {
		return t.serve(ctx, r, code, box, q)
	})
}

// ResolveHostTools asks each toolset for its tools now and makes them host
// tools whose calls run through call(tool) (nil: the tool's own Run,
// outside any run). Their schemas are the tools' schemas.
func ResolveHostTools(ctx context.Context, toolsets []agent.Toolset, call func(agent.Agent) sandbox.HostFunc) ([]sandbox.HostTool, error) {
	if call == nil {
		call = directCall
	}
	var out []sandbox.HostTool
	for i, ts := range toolsets {
		tools, err := ts.Tools(ctx)
		if err != nil {
			return nil, fmt.Errorf("jstool: toolset %d: list its tools: %w", i, err)
		}
		for _, a := range tools {
			if a == nil {
				return nil, fmt.Errorf("jstool: toolset %d returned a nil tool", i)
			}
			info := a.Info()
			out = append(out, sandbox.HostTool{Name: info.Name, Description: info.Description, InputSchema: info.InputSchema, OutputSchema: info.OutputSchema, Call: call(a)})
		}
	}
	return out, nil
}

// directCall runs a tool as a run of its own.
func directCall(a agent.Agent) sandbox.HostFunc {
	return func(ctx context.Context, args json.RawMessage) (json.RawMessage, error) {
		return agent.Invoke(ctx, a, args)
	}
}

// callQueue carries the code's calls from the executor's goroutines to
// the evaluateJs run's goroutine, which alone may start nested runs. The
// calls wait in a list; a message in the run's mailbox (the task runner's,
// agentrt.WithTaskRunner) wakes the run's goroutine to take them, so that
// the calls made together start together. The executor's end comes
// through the same mailbox. An executor ends every call before its
// RunWithTools returns, so every message of a call reaches the run's
// goroutine before the executor's end does.
type callQueue struct {
	box     taskrun.Mailbox
	mu      sync.Mutex
	waiting []*agentCall // arrived, not taken by the run's goroutine yet
	ended   bool         // the run stopped serving calls
}

type agentCall struct {
	index int             // CallIndex: the calls start in this order
	agent agent.Agent     // nil: call index was refused before it reached the tool
	ctx   context.Context // the executor's: ends with the snippet, at its deadline
	args  json.RawMessage
	out   json.RawMessage
	err   error
	done  chan struct{}
}

// callsArrived is the mailbox message that tells the run's goroutine
// calls are waiting.
type callsArrived struct{}

// executorEnded is the mailbox message of the executor's end.
type executorEnded struct {
	res *sandbox.Result
	err error
}

// put hands c to the run's goroutine; false when the run no longer serves
// calls.
func (q *callQueue) put(c *agentCall) bool {
	q.mu.Lock()
	if q.ended {
		q.mu.Unlock()
		return false
	}
	q.waiting = append(q.waiting, c)
	q.mu.Unlock()
	q.box.Send(callsArrived{})
	return true
}

// take returns the calls waiting, in the order they arrived.
func (q *callQueue) take() []*agentCall {
	q.mu.Lock()
	defer q.mu.Unlock()
	w := q.waiting
	q.waiting = nil
	return w
}

// end stops serving calls and returns those that arrived unserved.
func (q *callQueue) end() []*agentCall {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.ended = true
	w := q.waiting
	q.waiting = nil
	return w
}

// caller is the HostFunc of tool a: it hands the call to the run and waits
// for its end.
func (q *callQueue) caller(a agent.Agent) sandbox.HostFunc {
	return func(ctx context.Context, args json.RawMessage) (json.RawMessage, error) {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		c := &agentCall{index: sandbox.CallIndex(ctx), agent: a, ctx: ctx, args: args, done: make(chan struct{})}
		if !q.put(c) {
			return nil, sandbox.ErrRunEnded
		}
		select {
		case <-c.done:
			return c.out, c.err
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}

// skip tells the run that call index will not come, so that the calls
// after it need not wait for it.
func (q *callQueue) skip(_ context.Context, index int) {
	q.put(&agentCall{index: index})
}

// inOrder keeps the calls that arrived until they can start in the order
// the code made them, whatever order their goroutines delivered them in:
// the nested runs' ids then follow the code, so a resumed run replays
// each recorded call for the same call.
type inOrder struct {
	next    int
	waiting map[int]*agentCall
}

// add takes c and returns the calls that may start now, in order.
func (o *inOrder) add(c *agentCall, ready []*agentCall) []*agentCall {
	if c.index < 0 { // not numbered: start it as it comes
		return append(ready, c)
	}
	o.waiting[c.index] = c
	for {
		w, ok := o.waiting[o.next]
		if !ok {
			return ready
		}
		delete(o.waiting, o.next)
		o.next++
		if w.agent != nil {
			ready = append(ready, w)
		}
	}
}

// serve runs code with box and, meanwhile, the calls it makes, in the
// order the code made them: the calls ready together run as nested runs of
// r, at once. The executor runs as a task of the run's task runner. A call
// that must end the run as it is (the consumer stopped, a limit, a
// question for a person, a halt) stops the code and is the run's error.
func (t *tool) serve(ctx context.Context, r *agent.Run, code string, box *sandbox.Toolbox, q *callQueue) (*sandbox.Result, error) {
	runCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	taskrun.From(ctx).Go(func() {
		res, err := t.runner.RunWithTools(runCtx, code, box)
		q.box.Send(executorEnded{res, err})
	})
	var stop error
	order := &inOrder{waiting: map[int]*agentCall{}}
	calls := 0
	for {
		switch m := q.box.Receive().(type) {
		case executorEnded:
			// An executor that broke its promise and left a call
			// running gets a refusal for it.
			refuse(q.end())
			if span := trace.SpanFromContext(ctx); span.IsRecording() {
				span.SetAttributes(attribute.Int("loom.sandbox.tool_calls", calls))
			}
			if stop != nil {
				return m.res, stop
			}
			return m.res, m.err
		case callsArrived:
			var batch []*agentCall
			for _, c := range q.take() {
				batch = order.add(c, batch)
			}
			if len(batch) == 0 {
				continue
			}
			if stop != nil {
				refuse(batch)
				continue
			}
			calls += len(batch)
			if err := runBatch(ctx, r, batch); err != nil {
				stop = err
				cancel()
			}
		}
	}
}

// refuse ends the calls in batch with [sandbox.ErrRunEnded]; skipped
// calls' markers have no caller to tell.
func refuse(batch []*agentCall) {
	for _, c := range batch {
		if c.done == nil {
			continue
		}
		c.err = sandbox.ErrRunEnded
		close(c.done)
	}
}

// callContext is the context the batch's nested runs get: ctx's values,
// ending with ctx and with the snippet that made the calls (at its
// deadline, which the tools see, or when it ends), one code-mode level
// deeper ([CallDepth]). It starts no timer of its own: the executor's time
// limit ends the snippet, and with it the calls.
func callContext(ctx context.Context, batch []*agentCall) (context.Context, context.CancelFunc) {
	cctx, cancel := context.WithCancelCause(WithCallDepth(ctx, CallDepth(ctx)+1))
	snippet := batch[0].ctx // the calls of a batch are one snippet's
	if snippet == nil {
		return cctx, func() { cancel(context.Canceled) }
	}
	stop := context.AfterFunc(snippet, func() { cancel(context.Cause(snippet)) })
	end := func() { stop(); cancel(context.Canceled) }
	if d, ok := snippet.Deadline(); ok {
		if outer, ok := ctx.Deadline(); !ok || d.Before(outer) {
			return snippetDeadline{cctx, d}, end
		}
	}
	return cctx, end
}

// snippetDeadline is a context that reports the deadline of the snippet
// whose end cancels it, so that the tools it reaches (an MCP server, a
// nested snippet) see how long they have.
type snippetDeadline struct {
	context.Context
	deadline time.Time
}

// Deadline returns the snippet's deadline.
func (c snippetDeadline) Deadline() (time.Time, bool) { return c.deadline, true }

// runBatch runs the calls as nested runs of r, under the snippet's
// deadline; it returns the error of one that ends the run. Past
// [MaxCallDepth] it refuses them.
func runBatch(outer context.Context, r *agent.Run, batch []*agentCall) error {
	if d := CallDepth(outer); d >= MaxCallDepth {
		for _, c := range batch {
			c.err = fmt.Errorf("%w: this call would nest code-mode tool calls %d deep, past the limit of %d (a snippet called a tool that ran a snippet that called a tool, and so on, as a coder served over MCP whose snippets call the same server does); do the work in this snippet instead of calling back", ErrCallDepth, d+1, MaxCallDepth)
			close(c.done)
		}
		return nil
	}
	ctx, cancel := callContext(outer, batch)
	defer cancel()
	var stop error
	finish := func(c *agentCall, out json.RawMessage, err error) {
		// A call that failed because its snippet ended (its time limit, an
		// error) leaves the snippet's own error to the run.
		if flow.Ends(outer, err) && (outer.Err() != nil || ctx.Err() == nil) && stop == nil {
			stop = err
		}
		c.out, c.err = out, err
		close(c.done)
	}
	if len(batch) == 1 {
		out, err := r.Call(ctx, tracedTool{batch[0].agent}, batch[0].args)
		finish(batch[0], out, err)
		return stop
	}
	jobs := make([]agentrt.Job, len(batch))
	for i, c := range batch {
		jobs[i] = agentrt.Job{Agent: tracedTool{c.agent}, Input: c.args}
	}
	outs, err := agentrt.Fan(ctx, r, jobs, agentrt.FanOptions{Collect: true})
	if err != nil {
		for _, c := range batch {
			finish(c, nil, err)
		}
		return err
	}
	for i, o := range outs {
		finish(batch[i], o.End.Output, o.Err)
	}
	return stop
}

// tracedTool runs a tool under an "execute_tool" span, as a model's direct
// call of it is traced; the span is a child of the sandbox.run span.
type tracedTool struct{ agent.Agent }

func (t tracedTool) Run(ctx context.Context, input json.RawMessage) iter.Seq2[agent.Event, error] {
	return func(yield func(agent.Event, error) bool) {
		ctx, span := telemetry.Tracer(ctx).Start(ctx, "execute_tool "+t.Info().Name, trace.WithAttributes(
			attribute.String("gen_ai.operation.name", "execute_tool"),
			attribute.String("gen_ai.tool.name", t.Info().Name),
			attribute.String("gen_ai.tool.type", "function"),
			attribute.String("loom.tool.caller", "sandbox")))
		defer span.End()
		for ev, err := range t.Agent.Run(ctx, input) {
			if ev.Kind == agent.EventRunEnd && ev.Err != nil && span.IsRecording() {
				span.SetAttributes(attribute.Bool("loom.tool.is_error", true))
				span.SetStatus(codes.Error, ev.Err.Error())
			}
			if !yield(ev, err) {
				return
			}
		}
	}
}

// MaxCallDepth is how deeply code-mode tool calls may nest: a snippet's
// call of a tool that runs a snippet that calls a tool, and so on, also
// across MCP (a served coder whose snippets reach the server that serves
// it). A call past it is refused with [ErrCallDepth].
const MaxCallDepth = 4

// ErrCallDepth is the error of a host tool call refused because code-mode
// calls nest deeper than [MaxCallDepth].
var ErrCallDepth = errors.New("sandbox: tool call refused: code-mode calls nest too deep")

type callDepthKey struct{}

// CallDepth is how many code-mode tool calls enclose ctx: 0 outside any,
// 1 in a tool a snippet called, and so on. The mcp package carries it to
// the servers it calls and back into their runs.
func CallDepth(ctx context.Context) int {
	d, _ := ctx.Value(callDepthKey{}).(int)
	return d
}

// WithCallDepth returns ctx with [CallDepth] d.
func WithCallDepth(ctx context.Context, d int) context.Context {
	return context.WithValue(ctx, callDepthKey{}, d)
}
