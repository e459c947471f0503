package evals

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/trace"

	"github.com/loomwork/loom/agent"
	"github.com/loomwork/loom/engine"
	"github.com/loomwork/loom/model"
	"github.com/loomwork/loom/sandbox"
	"github.com/loomwork/loom/sandbox/jstool"
)

// DefaultInstructions precede each HumanEval prompt in the solver's input.
const DefaultInstructions = "Complete the JavaScript function below. Answer with the whole function " +
	"(its declaration included, with any helpers it needs) in one ```javascript fenced block. " +
	"Plain JavaScript only: no imports, require, exports or console output. " +
	"Use null where the docstring says None, arrays for lists and tuples, and plain objects for dicts."

// DefaultConcurrency is how many samples run at once by default.
const DefaultConcurrency = 4

// ErrInvalidConfig is wrapped by the errors of a Config that cannot run.
var ErrInvalidConfig = errors.New("evals: invalid config")

// ErrNoProblems is returned by Run and RunTasks when there is nothing to
// run (a filter matched nothing, or the data set is empty).
var ErrNoProblems = errors.New("evals: no problems to run")

// Config configures an evaluation.
type Config struct {
	// Solver answers each problem: it gets {"message": instructions and
	// prompt} and answers with code in a fenced block or a "code" field
	// (HumanEval), or with the answer (tasks). Any agent: an *agent.AI, the
	// Coder→Sandbox workflow (codeexec). Required.
	Solver agent.Agent
	// Engine runs the solver (its default model, limits, tracing, prices);
	// nil uses engine.New with TracerProvider.
	Engine *engine.Engine
	// Executor runs each sample's code with its tests, one fresh run per
	// sample under the executor's limits. Required for HumanEval problems.
	Executor sandbox.Executor
	// Samples is n, the samples per problem (default 1).
	Samples int
	// K lists the k of pass@k to report (default 1, 10 and 100); those
	// above Samples are left out.
	K []int
	// Concurrency is how many samples run at once (default
	// DefaultConcurrency).
	Concurrency int
	// Instructions precede each prompt (default DefaultInstructions for
	// problems, DefaultTaskInstructions for tasks).
	Instructions string
	// Extract takes the code out of the solver's output (default
	// ExtractCode). When it finds none, the last snippet the solver ran
	// with the sandbox tool is taken (the Coder→Sandbox workflow tests its
	// function there and may answer without repeating it).
	Extract func(out json.RawMessage) (string, error)
	// Progress, when set, is called after each sample, one call at a time.
	Progress func(done, total int, problem string, s Sample)
	// Dataset, Model and SolverName label the report.
	Dataset, Model, SolverName string
	// TracerProvider, when set, records the evaluation as a trace: a root
	// span for the run and one per sample, the solver's runs beneath.
	TracerProvider trace.TracerProvider
	// MeterProvider, when set, records loom.eval.samples (by dataset and
	// class) and loom.eval.solver.duration.
	MeterProvider metric.MeterProvider
}

// item is one problem or task, as the runner sees it.
type item struct {
	id, prompt string
	// check scores the solver's output (and the messages of its run): the
	// class, a message and the code or answer it read.
	check func(ctx context.Context, out json.RawMessage, msgs []model.Message) (Class, string, string)
}

// Run evaluates the solver on problems: Samples answers per problem, each
// run with the problem's tests in a fresh sandbox run. It returns the
// report, or an error for an invalid config, no problems, or a context
// that ended (then with the report of the samples that finished).
func Run(ctx context.Context, problems []Problem, cfg Config) (*Report, error) {
	if cfg.Executor == nil {
		return nil, fmt.Errorf("%w: Executor is nil: give a sandbox executor (sandbox.NewIsolated) to run the samples", ErrInvalidConfig)
	}
	extract := cfg.Extract
	if extract == nil {
		extract = ExtractCode
	}
	instr := cfg.Instructions
	if instr == "" {
		instr = DefaultInstructions
	}
	items := make([]item, len(problems))
	for i, p := range problems {
		items[i] = item{id: p.ID, prompt: instr + "\n\n```javascript\n" + p.Prompt + "```", check: func(ctx context.Context, out json.RawMessage, msgs []model.Message) (Class, string, string) {
			code, err := extract(out)
			if err != nil {
				if code = lastSnippet(msgs); code == "" {
					return NoCode, err.Error(), ""
				}
			}
			_, err = cfg.Executor.Run(ctx, p.Program(code))
			c := classify(err)
			if c == Passed {
				return c, "", code
			}
			return c, err.Error(), code
		}}
	}
	if cfg.Dataset == "" {
		cfg.Dataset = "humaneval-js"
	}
	rep, err := run(ctx, items, cfg)
	if rep != nil {
		ran := map[string]bool{}
		for _, r := range rep.Results {
			ran[r.ID] = true
		}
		for _, p := range problems {
			if p.Override != "" && ran[p.ID] {
				rep.Overridden++
			}
		}
	}
	return rep, err
}

func run(ctx context.Context, items []item, cfg Config) (*Report, error) {
	if cfg.Solver == nil {
		return nil, fmt.Errorf("%w: Solver is nil: give the agent that answers the problems", ErrInvalidConfig)
	}
	for _, f := range [...]struct {
		name string
		v    int
	}{{"Samples", cfg.Samples}, {"Concurrency", cfg.Concurrency}} {
		if f.v < 0 {
			return nil, fmt.Errorf("%w: %s is %d: use 0 for the default or a positive number", ErrInvalidConfig, f.name, f.v)
		}
	}
	if len(items) == 0 {
		return nil, ErrNoProblems
	}
	n := cfg.Samples
	if n == 0 {
		n = 1
	}
	workers := cfg.Concurrency
	if workers == 0 {
		workers = DefaultConcurrency
	}
	ks := cfg.K
	if len(ks) == 0 {
		ks = []int{1, 10, 100}
	}
	for _, k := range ks {
		if k < 1 {
			return nil, fmt.Errorf("%w: pass@%d: k must be at least 1", ErrInvalidConfig, k)
		}
	}
	eng := cfg.Engine
	if eng == nil {
		eng = engine.New(engine.Config{TracerProvider: cfg.TracerProvider})
	}
	tel, err := newTelemetry(cfg)
	if err != nil {
		return nil, err
	}
	rep := &Report{Dataset: cfg.Dataset, Model: cfg.Model, Solver: cfg.SolverName, Samples: n, Started: time.Now().UTC()}
	if rep.Solver == "" {
		rep.Solver = cfg.Solver.Info().Name
	}
	ctx, end := tel.start(ctx, rep, len(items))
	results := make([]Result, len(items))
	for i, it := range items {
		results[i] = Result{ID: it.id, Samples: make([]Sample, n)}
	}
	type job struct{ i, s int }
	jobs := make(chan job)
	var (
		mu   sync.Mutex
		done int
		wg   sync.WaitGroup
	)
	for range min(workers, len(items)*n) {
		wg.Go(func() {
			for j := range jobs {
				it := items[j.i]
				s := sample(ctx, eng, cfg.Solver, it, j.s, tel)
				if s.Class == "" {
					continue // stopped before it finished
				}
				mu.Lock()
				results[j.i].Samples[j.s] = s
				if s.Class == Passed {
					results[j.i].Passed++
				}
				done++
				if cfg.Progress != nil {
					cfg.Progress(done, len(items)*n, it.id, s)
				}
				mu.Unlock()
			}
		})
	}
	started := time.Now()
feed:
	for i := range items {
		for s := range n {
			select {
			case jobs <- job{i, s}:
			case <-ctx.Done():
				break feed
			}
		}
	}
	close(jobs)
	wg.Wait()
	wall := time.Since(started)
	if err := ctx.Err(); err != nil {
		rep.Results = finished(results)
		rep.summarize(ks, wall)
		end(rep, err)
		return rep, fmt.Errorf("evals: stopped after %d of %d samples: %w", done, len(items)*n, err)
	}
	rep.Results = results
	rep.summarize(ks, wall)
	end(rep, nil)
	return rep, nil
}

// finished keeps the samples that finished before the evaluation was
// stopped, and the problems that have any.
func finished(results []Result) []Result {
	var kept []Result
	for _, r := range results {
		var ss []Sample
		for _, s := range r.Samples {
			if s.Class != "" {
				ss = append(ss, s)
			}
		}
		if len(ss) > 0 {
			r.Samples = ss
			kept = append(kept, r)
		}
	}
	return kept
}

// sample asks the solver once and checks its answer.
func sample(ctx context.Context, eng *engine.Engine, solver agent.Agent, it item, idx int, tel *telemetry) Sample {
	ctx, end := tel.sample(ctx, it.id, idx)
	start := time.Now()
	res, err := eng.Invoke(ctx, solver, map[string]string{"message": it.prompt})
	lat := time.Since(start)
	var s Sample
	if err != nil {
		s = Sample{Class: SolverError, Message: cut(err.Error())}
		if ctx.Err() != nil {
			s.Class = "" // not a sample: the evaluation was stopped
		}
	} else {
		class, msg, code := it.check(ctx, res.Output, res.Messages)
		s = Sample{Class: class, Message: cut(msg), Code: code, Usage: res.Usage, CostUSD: res.Cost}
		if ctx.Err() != nil && class != Passed {
			s.Class = ""
		}
	}
	s.LatencyMS = ms(lat)
	end(ctx, s, lat)
	return s
}

// lastSnippet is the code of the last call of the sandbox tool among a
// run's messages, or "".
func lastSnippet(msgs []model.Message) string {
	for i := len(msgs) - 1; i >= 0; i-- {
		calls := msgs[i].ToolCalls()
		for j := len(calls) - 1; j >= 0; j-- {
			if calls[j].Name != jstool.Name {
				continue
			}
			var in jstool.Input
			if json.Unmarshal(calls[j].Arguments, &in) == nil && strings.TrimSpace(in.Code) != "" {
				return in.Code
			}
		}
	}
	return ""
}

func cut(s string) string {
	if len(s) > 500 {
		return s[:497] + "..."
	}
	return s
}
