package main

import (
	"cmp"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/loomwork/loom/agent"
	"github.com/loomwork/loom/codeexec"
	"github.com/loomwork/loom/engine"
	"github.com/loomwork/loom/evals"
	"github.com/loomwork/loom/internal/cli"
	"github.com/loomwork/loom/model"
	"github.com/loomwork/loom/sandbox"
)

const evalUsage = `Usage: loom eval [humaneval|loom-tasks] [flags]
       loom eval diff A.json B.json

Runs a model on a benchmark and reports how often its answers pass:
  humaneval   HumanEval's 164 problems in JavaScript (the default). loom does
              not ship HumanEval: download HumanEval.jsonl.gz (MIT) from
              github.com/openai/human-eval and pass --humaneval, set
              $LOOM_HUMANEVAL, or put it at ../shared/data/ beside the repo.
              Each sample runs with the problem's tests in a fresh sandbox run.
  loom-tasks  40 tasks (arithmetic, dates, strings, lists, async, JSON) whose
              answers are checked; measures the Coder→Sandbox workflow.

The report gives pass@1 and pass@k (k = 10, 100 up to --samples), each
problem's failures by class, tokens, cost, latency p50/p95, throughput and
error rate: a table, or JSON with --json; --out also writes the JSON. The run
is recorded to the trace database, so 'loom observe' shows it.

Flags:
  --model ID         provider:model (default $MODEL, else openai); keys from
                     the environment or .env.local
  --solver KIND      ai (the model answers directly; default for humaneval)
                     or coder (the Coder→Sandbox workflow; default for
                     loom-tasks)
  --samples N        answers per problem, n (default 1; 0 is the default,
                     as for the other numbers)
  --temperature T    the model's sampling temperature, 0 to 2 (default: the
                     provider's); pass@k with n > 1 wants some, as 0.8
  --concurrency N    samples run at once (default %d)
  --limit N          run only the first N problems selected
  --timeout D        the longest one sample's solver run may take (default
                     5m); a sample over it is a solver error
  --problems LIST    comma-separated ids (HumanEval/12, or 12), globs
                     (HumanEval/1*) or /regexps/
  --humaneval FILE   the HumanEval file (JSONL, gzip or plain)
  --out FILE         write the JSON report to FILE
  --json             print the JSON report instead of the table
  --sandbox KIND     isolated (worker processes with OS limits, the default)
                     or inprocess (needs --trusted-code)
  --trusted-code     accept that inprocess runs the model's code with this
                     program's privileges
  --sandbox-timeout D
                     the time limit of one sample's sandbox run (default
                     5s); a sample over it is class timeout
  --no-trace         do not record the run to the trace database
  --log-level LEVEL  ERROR, WARN (default), INFO, DEBUG or TRACE, logged on
                     stderr

Exit status:
  0    the evaluation ran (whatever the score)
  1    it could not finish: the sandbox did not start, the report could not
       be written, or every sample ended in an error (a bad key, a provider
       down), so nothing was measured
  2    usage or configuration: bad options, an unknown model or data set,
       no HumanEval file, no problem selected
  130  stopped by Ctrl-C (143 by SIGTERM); --out still gets the samples
       that finished
  'loom eval diff' exits 0 when no problem passes less often in B than in
  A, 1 when some do, 2 when a report cannot be read.
`

// defaultEvalTimeout bounds one sample's solver run unless --timeout says
// otherwise.
const defaultEvalTimeout = 5 * time.Minute

// evalOptions are the parsed options of loom eval. As everywhere in loom, a
// zero number means the default and a negative one is an error.
type evalOptions struct {
	dataset, modelID, solver, problems, humaneval, out, sandbox string
	logLevel                                                    string
	samples, concurrency, limit                                 int
	temperature                                                 *float64
	timeout, sandboxTimeout                                     time.Duration
	json, trusted, noTrace                                      bool
}

func runEval(ctx context.Context, args []string, stdout, stderr io.Writer, open modelOpener) int {
	if len(args) > 0 && args[0] == "diff" {
		return runEvalDiff(args[1:], stdout, stderr)
	}
	o, err := parseEvalOptions(args)
	if errors.Is(err, flag.ErrHelp) {
		fmt.Fprintf(stdout, evalUsage, evals.DefaultConcurrency)
		return 0
	}
	if err != nil {
		return exitWith(stderr, err)
	}
	envFiles := cli.DotEnvFiles()
	if err := cli.LoadDotEnv(envFiles); err != nil {
		return exitWith(stderr, &exitError{1, err.Error()})
	}
	set, err := loadEvalSet(o)
	if err != nil {
		return exitWith(stderr, err)
	}
	id := modelOrDefault(o.modelID)
	m, err := open(id)
	if err != nil {
		return exitWith(stderr, &exitError{2, fmt.Sprintf("--model %s: %v", id, cli.MissingKey(err, envFiles))})
	}
	var exec sandbox.Executor
	limits := sandbox.Limits{Timeout: o.sandboxTimeout}
	if o.sandbox == "isolated" {
		cfg := isolatedConfig(false)
		cfg.Limits = limits
		exec, err = sandbox.NewIsolated(cfg)
	} else {
		exec, err = sandbox.NewInProcess(sandbox.InProcessConfig{Limits: limits})
	}
	if err != nil {
		return exitWith(stderr, &exitError{1, fmt.Sprintf("start the sandbox: %v", err)})
	}
	defer exec.Close()
	solver, closeSolver, err := newEvalSolver(o, m, exec)
	if err != nil {
		return exitWith(stderr, &exitError{1, err.Error()})
	}
	defer closeSolver()

	cfg := evals.Config{Solver: solver, Executor: exec, Samples: o.samples, Concurrency: o.concurrency,
		Model: id, SolverName: o.solver}
	level, _ := cli.ParseLevel(o.logLevel) // checked with the options
	engCfg := engine.Config{Limits: agent.Limits{Timeout: cmp.Or(o.timeout, defaultEvalTimeout)}, Logger: cli.NewLogger(stderr, level)}
	traced := ""
	if !o.noTrace {
		tr, stop := startEvalTracing(ctx, stderr)
		defer stop()
		if tr != nil {
			cfg.TracerProvider, cfg.MeterProvider, traced = tr.tp, tr.mp, tr.path
			tr.apply(&engCfg)
		}
	}
	cfg.Engine = engine.New(engCfg)
	if cli.IsTerminal(stderr) {
		bar := newProgressBar(stderr)
		cfg.Progress = bar.update
		defer bar.finish()
	}

	var rep *evals.Report
	if o.dataset == "loom-tasks" {
		rep, err = evals.RunTasks(ctx, set.tasks, cfg)
	} else {
		rep, err = evals.Run(ctx, set.problems, cfg)
	}
	return finishEval(ctx, o, rep, err, traced, stdout, stderr)
}

// newEvalSolver returns the solver --solver names on model m, and what
// closes it.
func newEvalSolver(o evalOptions, m model.Model, exec sandbox.Executor) (agent.Agent, func(), error) {
	opts := model.Options{Temperature: o.temperature}
	if o.solver == "coder" {
		ce, err := codeexec.New(codeexec.Config{Name: "coder", Model: m, Sandbox: exec, Options: opts})
		if err != nil {
			return nil, nil, err
		}
		return ce, func() { _ = ce.Close() }, nil
	}
	ai, err := agent.NewAI(agent.AIConfig{Name: "solver", Model: m, Options: opts})
	return ai, func() {}, err
}

// finishEval writes the report (to --out, then to stdout as --json or a
// table) and returns the exit status.
func finishEval(ctx context.Context, o evalOptions, rep *evals.Report, err error, traced string, stdout, stderr io.Writer) int {
	if rep == nil {
		return exitWith(stderr, &exitError{1, err.Error()})
	}
	if o.out != "" {
		if werr := writeReport(o.out, rep); werr != nil {
			return exitWith(stderr, &exitError{1, fmt.Sprintf("--out: %v", werr)})
		}
	}
	if code, msg, ok := interruptedEval(ctx, o.out); ok {
		fmt.Fprint(stderr, msg)
		return code
	}
	if err != nil {
		return exitWith(stderr, &exitError{1, err.Error()})
	}
	if o.json {
		err = rep.WriteJSON(stdout)
	} else {
		err = rep.WriteTable(stdout)
		if err == nil && traced != "" {
			fmt.Fprintf(stdout, "  trace      recorded to %s: run 'loom observe' to see it\n", traced)
		}
	}
	if err != nil {
		return exitWith(stderr, &exitError{1, fmt.Sprintf("writing the report: %v", err)})
	}
	if rep.ErrorRate == 1 {
		first := ""
		if len(rep.Results) > 0 && len(rep.Results[0].Samples) > 0 {
			first = rep.Results[0].Samples[0].Message
		}
		return exitWith(stderr, &exitError{1, "every sample ended in an error, so nothing was measured; the first: " + first})
	}
	return 0
}

// exitError is a failure of loom eval with its exit status.
type exitError struct {
	code int
	msg  string
}

func (e *exitError) Error() string { return e.msg }

// exitWith prints err and returns its exit status (2 for a flag error).
func exitWith(stderr io.Writer, err error) int {
	var e *exitError
	if !errors.As(err, &e) {
		e = &exitError{2, fmt.Sprintf("%v: run 'loom help eval'", err)}
	}
	fmt.Fprintf(stderr, "loom eval: %s\n", e.msg)
	return e.code
}

// parseEvalOptions parses and checks the arguments after "eval".
func parseEvalOptions(args []string) (evalOptions, error) {
	o := evalOptions{dataset: "humaneval"}
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		o.dataset, args = args[0], args[1:]
	}
	if o.dataset == "help" {
		return o, flag.ErrHelp
	}
	fs := flag.NewFlagSet("loom eval", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.StringVar(&o.modelID, "model", "", "")
	fs.StringVar(&o.solver, "solver", "", "")
	fs.IntVar(&o.samples, "samples", 0, "")
	fs.Func("temperature", "", func(v string) error {
		t, err := strconv.ParseFloat(v, 64)
		if err != nil || t < 0 || t > 2 {
			return fmt.Errorf("--temperature %s: use a number from 0 to 2", v)
		}
		o.temperature = &t
		return nil
	})
	fs.IntVar(&o.concurrency, "concurrency", 0, "")
	fs.IntVar(&o.limit, "limit", 0, "")
	fs.DurationVar(&o.timeout, "timeout", 0, "")
	fs.StringVar(&o.problems, "problems", "", "")
	fs.StringVar(&o.humaneval, "humaneval", "", "")
	fs.StringVar(&o.out, "out", "", "")
	fs.BoolVar(&o.json, "json", false, "")
	fs.StringVar(&o.sandbox, "sandbox", "isolated", "")
	fs.BoolVar(&o.trusted, "trusted-code", false, "")
	fs.DurationVar(&o.sandboxTimeout, "sandbox-timeout", 0, "")
	fs.BoolVar(&o.noTrace, "no-trace", false, "")
	fs.StringVar(&o.logLevel, "log-level", "WARN", "")
	if err := fs.Parse(args); err != nil {
		return o, err
	}
	if fs.NArg() > 0 {
		return o, &exitError{2, fmt.Sprintf("unexpected argument %q: flags go after the data set: run 'loom help eval'", fs.Arg(0))}
	}
	if code, msg := o.check(); code != 0 {
		return o, &exitError{code, msg}
	}
	return o, nil
}

// check validates the options; a non-zero code comes with its message.
func (o *evalOptions) check() (int, string) {
	switch o.dataset {
	case "humaneval", "loom-tasks":
	default:
		return 2, fmt.Sprintf("unknown data set %q: use humaneval or loom-tasks", o.dataset)
	}
	if o.solver == "" {
		o.solver = map[string]string{"humaneval": "ai", "loom-tasks": "coder"}[o.dataset]
	}
	if o.solver != "ai" && o.solver != "coder" {
		return 2, fmt.Sprintf("--solver %q: use ai or coder", o.solver)
	}
	for _, f := range []struct {
		name string
		v    int
	}{{"--samples", o.samples}, {"--concurrency", o.concurrency}, {"--limit", o.limit}} {
		if f.v < 0 {
			return 2, fmt.Sprintf("%s %d: use 0 for the default or a positive number", f.name, f.v)
		}
	}
	if _, err := cli.ParseLevel(o.logLevel); err != nil {
		return 2, err.Error()
	}
	if o.timeout < 0 {
		return 2, fmt.Sprintf("--timeout %s: use 0 for the default or a positive duration, as 2m", o.timeout)
	}
	if err := cli.CheckSandboxTimeout(o.sandboxTimeout); err != nil {
		return 2, err.Error()
	}
	kind, err := cli.SandboxKind(o.sandbox, o.trusted)
	if err != nil {
		return 2, err.Error()
	}
	o.sandbox = kind
	if o.humaneval != "" && o.dataset != "humaneval" {
		return 2, "--humaneval applies to the humaneval data set only"
	}
	return 0, ""
}

// modelOrDefault is the --model given, else $MODEL, else "openai" (the
// provider's default model).
func modelOrDefault(id string) string {
	if id == "" {
		id = strings.TrimSpace(os.Getenv("MODEL"))
	}
	if id == "" {
		id = "openai"
	}
	return id
}

func writeReport(path string, rep *evals.Report) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := rep.WriteJSON(f); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// interruptedEval returns the exit status and message for a ctx a signal
// cancelled; out is the --out file.
func interruptedEval(ctx context.Context, out string) (code int, msg string, ok bool) {
	s := cli.Interrupted(ctx)
	if s == nil {
		return 0, "", false
	}
	kept := "pass --out FILE to keep the samples that finished"
	if out != "" {
		kept = out + " holds the samples that finished"
	}
	return s.ExitCode(), fmt.Sprintf("loom eval: %v; %s\n", s, kept), true
}
