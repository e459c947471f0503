// Command workflow-approval puts a person in charge of every snippet the
// coder wants to run: each one is shown and runs only after a "y". Any
// other answer is the reason the coder is given, so it can change its
// approach or explain. An audit of every decision is printed at the end.
//
// It shows the codeexec.Approver seam: an approver that records decisions
// wraps the terminal prompt; a policy engine or a review service would
// implement the same interface.
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"sync"

	"github.com/loomwork/loom/agent"
	"github.com/loomwork/loom/codeexec"
	"github.com/loomwork/loom/internal/cli"
	_ "github.com/loomwork/loom/model/providers"
)

// audit records each decision of the approver it wraps.
type audit struct {
	next      codeexec.Approver
	mu        sync.Mutex
	decisions []string
}

func (a *audit) Approve(ctx context.Context, req codeexec.ApprovalRequest) (codeexec.Approval, error) {
	d, err := a.next.Approve(ctx, req)
	a.mu.Lock()
	defer a.mu.Unlock()
	switch {
	case err != nil:
		a.decisions = append(a.decisions, fmt.Sprintf("snippet %d: no answer (%v)", req.Attempt, err))
	case d.Approved:
		a.decisions = append(a.decisions, fmt.Sprintf("snippet %d: approved", req.Attempt))
	default:
		a.decisions = append(a.decisions, fmt.Sprintf("snippet %d: declined: %s", req.Attempt, d.Reason))
	}
	return d, err
}

func (a *audit) report(w io.Writer) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if len(a.decisions) == 0 {
		return
	}
	fmt.Fprintln(w, "\nApprovals:")
	for _, d := range a.decisions {
		fmt.Fprintln(w, "  "+d)
	}
}

func newApp() *cli.App {
	return &cli.App{
		Name:            "workflow-approval",
		Summary:         "the coder's code runs only after you approve it",
		Welcome:         "Ask anything that can be solved by running code; you approve every snippet before it runs.",
		DefaultQuestion: "What is the 30th Fibonacci number?",
		Answer:          []string{"coder"},
		Build:           build,
	}
}

func build(_ context.Context, env *cli.Env) (agent.Agent, error) {
	if !env.CanAsk() {
		return nil, fmt.Errorf("this example asks you to approve each snippet, and no answer can be read (no terminal, and stdin is empty or closed): run it from a terminal, or give the question with -i and pipe the answers (y, n or a reason, one per line) on stdin")
	}
	tool, topLevelAwait, err := cli.NewSandbox(env, cli.SandboxIsolated, 0)
	if err != nil {
		return nil, err
	}
	a := &audit{next: &codeexec.PromptApprover{Ask: env.Ask}}
	env.Defer(func() { a.report(env.Stdio.Out) })
	return codeexec.New(codeexec.Config{
		Name:         "approved_code_execution",
		Tool:         tool,
		Approver:     a,
		Options:      env.Flags.Options,
		Instructions: codeexec.CoderInstructions(tool.Info().Name, topLevelAwait),
	})
}

func main() {
	cli.SandboxWorker()
	os.Exit(cli.Run(newApp()))
}
