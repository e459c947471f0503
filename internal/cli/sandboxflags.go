package cli

import (
	"flag"
	"fmt"
	"time"

	"github.com/loomwork/loom/agent"
	"github.com/loomwork/loom/sandbox"
)

// SandboxFlags are the flags of the example programs that run the
// model's code: --sandbox KIND, --trusted-code and --sandbox-timeout, one
// grammar for all of them.
type SandboxFlags struct {
	Kind    string        // --sandbox: SandboxIsolated (the default) or SandboxInProcess
	Trusted bool          // --trusted-code: the consent SandboxInProcess needs
	Timeout time.Duration // --sandbox-timeout: one snippet's time limit; 0 is the sandbox's
}

// Register adds the flags to fs, the sandbox isolated by default;
// timeoutNote, when not empty, says what else --sandbox-timeout covers
// (", its tool calls included").
func (s *SandboxFlags) Register(fs *flag.FlagSet, timeoutNote string) {
	s.Kind = SandboxIsolated
	fs.StringVar(&s.Kind, "sandbox", s.Kind, "the `KIND` of sandbox code runs in: isolated (a worker process with OS limits) or inprocess (trusted code only, with --"+TrustFlag+")")
	fs.BoolVar(&s.Trusted, TrustFlag, false, "accept that --sandbox inprocess runs the model's code with this program's privileges")
	fs.DurationVar(&s.Timeout, "sandbox-timeout", 0, "time limit of one snippet"+timeoutNote+" (default: the sandbox's, 5s)")
}

// SandboxKind checks a --sandbox value and the consent it needs, and
// returns the kind: SandboxIsolated, or SandboxInProcess, also spelt
// in_process as in a loom file's sandbox kind. loom's commands and the
// examples read --sandbox through it.
func SandboxKind(kind string, trusted bool) (string, error) {
	switch kind {
	case SandboxIsolated:
	case SandboxInProcess, "in_process", "in-process":
		kind = SandboxInProcess
	default:
		return "", fmt.Errorf("--sandbox %q: use %s or %s", kind, SandboxIsolated, SandboxInProcess)
	}
	return kind, CheckTrust(kind, trusted)
}

// Executor checks the kind and the consent it needs and starts the
// executor, as [NewExecutor]; it is closed when the program ends.
func (s *SandboxFlags) Executor(env *Env) (sandbox.ToolRunner, error) {
	kind, err := SandboxKind(s.Kind, s.Trusted)
	if err != nil {
		return nil, err
	}
	return NewExecutor(env, kind, s.Timeout)
}

// Tool checks the consent the kind needs and returns the evaluateJs tool
// on a new executor, as [NewSandbox]: a failed snippet then sets the exit
// status. The executor is closed when the program ends.
func (s *SandboxFlags) Tool(env *Env) (agent.Agent, error) {
	kind, err := SandboxKind(s.Kind, s.Trusted)
	if err != nil {
		return nil, err
	}
	tool, _, err := NewSandbox(env, kind, s.Timeout)
	return tool, err
}
