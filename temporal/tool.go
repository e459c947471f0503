package temporal

import (
	"context"
	"encoding/json"
	"fmt"
	"iter"
	"time"

	"github.com/loomwork/loom/agent"
	"github.com/loomwork/loom/agent/agentrt"
	"github.com/loomwork/loom/sandbox"
	"github.com/loomwork/loom/sandbox/jstool"
	"go.temporal.io/sdk/workflow"
)

// ActivityTool returns an agent with t's name, description and schemas
// whose runs execute t as the tool activity on a worker, whose Config.Tools
// must hold t (the same value, built by the same code). Use it for sandbox
// runs (jstool.New), HTTP and MCP tools: anything that is not a pure
// function of its input. The activity heartbeats while t runs.
func ActivityTool(t agent.Agent, opts ActivityOptions) agent.Agent {
	return &activityTool{t: t, opts: opts}
}

type activityTool struct {
	t    agent.Agent
	opts ActivityOptions
}

// Info is the tool's, but for ChecksInput: the run on the worker checks
// the input, and its error comes back through the activity.
func (a *activityTool) Info() agent.Info {
	i := a.t.Info()
	i.ChecksInput = false
	return i
}

// Run runs the tool activity as a run of the tool.
func (a *activityTool) Run(ctx context.Context, input json.RawMessage) iter.Seq2[agent.Event, error] {
	return agentrt.Execute(ctx, a, input, func(ctx context.Context, _ *agent.Run) (json.RawMessage, error) {
		b, err := bridgeFrom(ctx)
		if err != nil {
			return nil, err
		}
		var fut workflow.Future
		var cancel workflow.CancelFunc
		b.block(func(w workflow.Context) {
			w, err = a.opts.apply(w, 5*time.Minute, 30*time.Second)
			if err != nil {
				return
			}
			w, cancel = workflow.WithCancel(w)
			fut = workflow.ExecuteActivity(w, ToolActivity, ToolCall{Tool: a.t.Info().Name, Input: input})
		})
		if err != nil {
			return nil, err
		}
		if err := b.await(ctx, fut.IsReady); err != nil {
			cancel()
			return nil, err
		}
		var out json.RawMessage
		b.block(func(w workflow.Context) { err = fut.Get(w, &out) })
		if err != nil {
			return nil, activityError(err)
		}
		return out, nil
	})
}

// SandboxTool returns the evaluateJs tool (jstool.New) for a
// workflow: its runs execute as the tool activity on a worker whose
// Config.Tools holds jstool.New of an executor with limits l, such as
// the one [WorkerSandboxTool] makes. The workflow side needs no executor:
// its tool is jstool's, for the name, description and schemas the model
// sees, on an executor that never runs code.
func SandboxTool(l sandbox.Limits, opts ActivityOptions) (agent.Agent, error) {
	spec, err := jstool.New(workflowSide{lim: l}, jstool.Config{})
	if err != nil {
		return nil, err
	}
	return ActivityTool(spec, opts), nil
}

// workflowSide is the executor of the workflow side's evaluateJs tool:
// the tool's code runs on a worker, through the activity, never here.
type workflowSide struct{ lim sandbox.Limits }

func (w workflowSide) Limits() sandbox.Limits { return w.lim }

func (workflowSide) Run(context.Context, string) (*sandbox.Result, error) {
	return nil, fmt.Errorf("%w: the %s tool runs on a worker, through temporal.ActivityTool", ErrNotWorkflow, jstool.Name)
}

func (workflowSide) Close() error { return nil }

// WorkerSandboxTool is the worker's side of [SandboxTool]: the evaluateJs
// tool on an isolated executor (sandbox.NewIsolated with cfg), the
// boundary for a model's code, to put in Config.Tools. Close the executor
// when the worker stops. The worker program must call
// sandbox.ServeWorkerIfChild first thing in main, since the executor
// re-executes it. Build the tool on sandbox.NewInProcess only for trusted
// code: any snippet can kill a process that runs it in process.
func WorkerSandboxTool(cfg sandbox.IsolatedConfig) (agent.Agent, *sandbox.Isolated, error) {
	exec, err := sandbox.NewIsolated(cfg)
	if err != nil {
		return nil, nil, fmt.Errorf("temporal: start the worker's isolated sandbox: %w", err)
	}
	tool, err := jstool.New(exec, jstool.Config{})
	if err != nil {
		_ = exec.Close()
		return nil, nil, err
	}
	return tool, exec, nil
}
