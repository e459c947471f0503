package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/loomwork/loom/agent"
	"github.com/loomwork/loom/sandbox"
	"github.com/loomwork/loom/sandbox/jstool"
)

// The sandboxes --sandbox can name.
const (
	SandboxIsolated  = "isolated"  // worker processes with OS limits
	SandboxInProcess = "inprocess" // goja in this process
)

// TrustFlag is the flag that allows the in-process sandbox for the
// model's code.
const TrustFlag = "trusted-code"

// CheckTrust refuses the in-process sandbox unless trusted is set: code
// there runs with this program's privileges, which the sandbox package
// documents as fit for trusted code only, not for code a model an attacker
// may steer writes.
func CheckTrust(kind string, trusted bool) error {
	if kind == SandboxInProcess && !trusted {
		return fmt.Errorf("--sandbox %s runs the model's code in this process, with its privileges: it is for trusted code only; pass --%s to accept that, or use --sandbox %s", SandboxInProcess, TrustFlag, SandboxIsolated)
	}
	return nil
}

// SandboxWorker serves sandbox runs when this process was started as an
// isolated sandbox worker, and returns otherwise. Call it first thing in
// main, before anything else runs.
func SandboxWorker() { sandbox.ServeWorkerIfChild() }

// WorkerBinary is the name of the dedicated sandbox worker binary
// (github.com/loomwork/loom/sandbox/cmd/loom-jsworker).
const WorkerBinary = "loom-jsworker"

// WorkerBeside returns the path of a WorkerBinary in this program's own
// directory, and "" when there is none. The isolated sandbox starts it as
// its worker instead of this program: a binary that links the sandbox
// alone starts several times faster than an example that links every
// provider, and a one-shot run starts a worker on its way to the answer.
// Only the program's own directory is looked in, never $PATH.
func WorkerBeside() string {
	exe, err := os.Executable()
	if err != nil {
		return ""
	}
	return workerIn(filepath.Dir(exe))
}

// workerIn returns the path of an executable WorkerBinary in dir, or "".
func workerIn(dir string) string {
	p := filepath.Join(dir, WorkerBinary)
	if fi, err := os.Stat(p); err != nil || !fi.Mode().IsRegular() || fi.Mode().Perm()&0o111 == 0 {
		return ""
	}
	return p
}

// NewSandbox returns the evaluateJs tool on the kind of executor named
// (SandboxIsolated or SandboxInProcess), with timeout as the time limit of
// one snippet (0: the sandbox's default), and whether its snippets may use
// top-level await. The executor is closed when the program ends.
func NewSandbox(env *Env, kind string, timeout time.Duration) (agent.Agent, bool, error) {
	exec, err := NewExecutor(env, kind, timeout)
	if err != nil {
		return nil, false, err
	}
	tool, err := jstool.New(exec, jstool.Config{})
	if err != nil {
		return nil, false, err
	}
	env.verdict.tool = tool.Info().Name
	return tool, true, nil
}

// CheckSandboxTimeout checks a --sandbox-timeout value, for every program
// that takes the flag: 0 is the sandbox's default, a negative one an
// error.
func CheckSandboxTimeout(timeout time.Duration) error {
	if timeout < 0 {
		return fmt.Errorf("--sandbox-timeout %v: use 0 for the default or a positive duration, as 2s", timeout)
	}
	return nil
}

// NewExecutor starts the kind of executor named (SandboxIsolated or
// SandboxInProcess), with timeout as the time limit of one snippet (0: the
// sandbox's default), for a workflow that makes the evaluateJs tool itself
// (codeexec with SandboxTools). The executor is closed when the program
// ends.
func NewExecutor(env *Env, kind string, timeout time.Duration) (sandbox.ToolRunner, error) {
	if err := CheckSandboxTimeout(timeout); err != nil {
		return nil, err
	}
	lim := sandbox.Limits{Timeout: timeout}
	var exec sandbox.ToolRunner
	var err error
	switch kind {
	case SandboxIsolated:
		var iso *sandbox.Isolated
		// The first worker starts while the program goes on to its first
		// model call; the first snippet waits for it.
		cfg := sandbox.IsolatedConfig{Limits: lim, BackgroundStart: true}
		if w := WorkerBeside(); w != "" {
			cfg.WorkerCommand = []string{w}
		}
		iso, err = sandbox.NewIsolated(cfg)
		if err == nil {
			env.Log.Debug("sandbox", "executor", kind, "memory", iso.MemoryEnforcement())
			exec = iso
		}
	case SandboxInProcess:
		exec, err = sandbox.NewInProcess(sandbox.InProcessConfig{Limits: lim})
		env.Log.Debug("sandbox", "executor", kind)
	default:
		return nil, fmt.Errorf("--sandbox %q: use %s or %s", kind, SandboxIsolated, SandboxInProcess)
	}
	if err != nil {
		return nil, fmt.Errorf("starting the %s sandbox: %w", kind, err)
	}
	env.Defer(func() { _ = exec.Close() })
	env.verdict.tool = jstool.Name
	return exec, nil
}
