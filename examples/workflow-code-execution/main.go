// Command workflow-code-execution answers questions by writing JavaScript
// and running it in a sandbox: loom's version of the TypeScript framework's
// workflow-code-execution example.
//
// A coder (an AI agent taught the sandbox's rules) calls the evaluateJs
// tool; the code runs in an isolated worker process by default
// (--sandbox inprocess runs it in this process), optionally after an AI
// reviewer (--review) and a person (--approve) have accepted it. A failed
// run goes back to the coder with a correction request, within a retry
// budget (--max-retries). stdout shows each snippet, its console lines and
// value as they happen, then the answer as it streams; logs go to stderr.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"

	"github.com/loomwork/loom/agent"
	"github.com/loomwork/loom/codeexec"
	"github.com/loomwork/loom/compose"
	"github.com/loomwork/loom/internal/cli"
	_ "github.com/loomwork/loom/model/providers"
)

// settings are the example's own flags.
type settings struct {
	approve    bool
	review     bool
	sandbox    cli.SandboxFlags
	maxRetries int
	mcp        cli.MCPServers
}

func newApp() *cli.App {
	s := settings{maxRetries: codeexec.DefaultMaxRetries}
	return &cli.App{
		Name:            "workflow-code-execution",
		Summary:         "answers questions by writing JavaScript and running it in a sandbox",
		Welcome:         "Welcome to the code execution workflow! Ask anything that can be solved by running code.",
		DefaultQuestion: "10! = ?",
		Answer:          []string{"coder"},
		Flags: func(fs *flag.FlagSet) {
			fs.BoolVar(&s.approve, "approve", false, "show each snippet and ask y/N before it runs")
			fs.BoolVar(&s.review, "review", false, "have an AI reviewer read each snippet before it runs")
			s.sandbox.Register(fs, "")
			fs.IntVar(&s.maxRetries, "max-retries", s.maxRetries, "how many (`N`) rejected, declined or failed snippets the coder may follow with another")
			s.mcp.Register(fs)
		},
		Build: func(ctx context.Context, env *cli.Env) (agent.Agent, error) { return build(ctx, env, s) },
	}
}

func build(ctx context.Context, env *cli.Env, s settings) (agent.Agent, error) {
	exec, err := s.sandbox.Executor(env)
	if err != nil {
		return nil, err
	}
	toolsets, err := s.mcp.Toolsets(ctx, env)
	if err != nil {
		return nil, err
	}
	// The servers' tools are offered twice: to the coder as tools, and to
	// its snippets as tools.* functions (code mode).
	cfg := codeexec.Config{
		Sandbox:      exec,
		Options:      env.Flags.Options,
		MaxRetries:   s.maxRetries,
		Toolsets:     toolsets,
		SandboxTools: toolsets,
	}
	if s.maxRetries == 0 {
		cfg.MaxRetries = -1
	}
	if s.review {
		verdict, err := agent.SchemaFor[compose.Review]()
		if err != nil {
			return nil, err
		}
		if cfg.Reviewer, err = agent.NewAI(agent.AIConfig{Name: "reviewer", Instructions: codeexec.CodeReviewerInstructions, OutputSchema: verdict}); err != nil {
			return nil, err
		}
		env.Reviewer(cfg.Reviewer.Info().Name)
	}
	if s.approve {
		if !env.CanAsk() {
			return nil, fmt.Errorf("--approve asks before each snippet runs, and no answer can be read (no terminal, and stdin is empty or closed): run it from a terminal, or give the question with -i and pipe the answers (y or n, one per line) on stdin")
		}
		cfg.Approver = &codeexec.PromptApprover{Ask: env.Ask}
	}
	return codeexec.New(cfg)
}

func main() {
	cli.SandboxWorker()
	os.Exit(cli.Run(newApp()))
}
