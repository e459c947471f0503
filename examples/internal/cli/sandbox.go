package cli

import (
	"fmt"
	"time"

	"github.com/loomwork/loom/agent"
	"github.com/loomwork/loom/sandbox"
)

// The sandboxes --sandbox can name.
const (
	SandboxIsolated  = "isolated"  // worker processes with OS limits
	SandboxInProcess = "inprocess" // goja in this process
)

// SandboxWorker serves sandbox runs when this process was started as an
// isolated sandbox worker, and returns otherwise. Call it first thing in
// main, before anything else runs.
func SandboxWorker() { sandbox.ServeWorkerIfChild() }

// NewSandbox returns the evaluateJs tool on the kind of executor named
// (SandboxIsolated or SandboxInProcess), with timeout as the time limit of
// one snippet (0: the sandbox's default), and whether its snippets may use
// top-level await. The executor is closed when the program ends.
func NewSandbox(env *Env, kind string, timeout time.Duration) (agent.Agent, bool, error) {
	var opts []sandbox.Option
	if timeout < 0 {
		return nil, false, fmt.Errorf("--sandbox-timeout %v: it must be positive, as 2s", timeout)
	}
	if timeout > 0 {
		opts = append(opts, sandbox.WithTimeout(timeout))
	}
	var exec sandbox.Executor
	var err error
	switch kind {
	case SandboxIsolated:
		var iso *sandbox.Isolated
		iso, err = sandbox.NewIsolated(opts...)
		if err == nil {
			env.Log.Debug("sandbox", "executor", kind, "memory", iso.MemoryEnforcement())
			exec = iso
		}
	case SandboxInProcess:
		exec, err = sandbox.NewInProcess(opts...)
		env.Log.Debug("sandbox", "executor", kind)
	default:
		return nil, false, fmt.Errorf("--sandbox %q: use %s or %s", kind, SandboxIsolated, SandboxInProcess)
	}
	if err != nil {
		return nil, false, fmt.Errorf("starting the %s sandbox: %w", kind, err)
	}
	env.Defer(func() { _ = exec.Close() })
	tool, err := sandbox.NewTool(exec)
	if err != nil {
		return nil, false, err
	}
	env.verdict.tool = tool.Name()
	return tool, true, nil
}
