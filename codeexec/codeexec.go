package codeexec

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"strings"
	"sync"

	"github.com/loomwork/loom/agent"
	"github.com/loomwork/loom/compose"
	"github.com/loomwork/loom/internal/config"
	"github.com/loomwork/loom/internal/flow"
	"github.com/loomwork/loom/model"
	"github.com/loomwork/loom/sandbox"
	"github.com/loomwork/loom/sandbox/jstool"
	"github.com/loomwork/loom/vector"
)

// DefaultMaxRetries is a [CodeExecution]'s retry budget when none is
// configured.
const DefaultMaxRetries = 3

// Sentinels for the attempts a [CodeExecution] refuses to run, as the
// coder sees them in its tool's error result.
var (
	// ErrRejected marks code the reviewer rejected.
	ErrRejected = errors.New("rejected by the reviewer")
	// ErrDenied marks code the approver did not allow to run.
	ErrDenied = errors.New("not approved to run")
)

// Config configures a [CodeExecution]. Every field is
// optional: by default the code runs in loom's isolated sandbox.
type Config struct {
	// Name identifies the workflow (default "code_execution").
	Name string
	// Description tells a model what it does.
	Description string
	// Model is the coder's model; nil uses the run's or the engine's
	// default.
	Model model.Model
	// Options are sent with every coder model call.
	Options model.Options
	// Instructions are the coder's system prompt (default
	// [CoderInstructions]). They must teach the sandbox's rules.
	Instructions string
	// Tool is the tool that runs code, as the coder calls it: an agent
	// whose input has a "code" string and which fails its run when the code
	// fails ([jstool.New] gives one).
	Tool agent.Agent
	// Sandbox, when Tool is nil, is the executor the evaluateJs tool runs
	// code on. When both are nil, the workflow starts its own
	// [sandbox.Isolated] executor (the program's main must then call
	// sandbox.ServeWorkerIfChild first), which [CodeExecution.Close]
	// stops.
	Sandbox sandbox.Executor
	// Reviewer, when set, reads each snippet before it runs; its output is
	// a [compose.Review]. A rejection goes back to the coder as the tool's error
	// result, with the reviewer's feedback.
	Reviewer agent.Agent
	// Approver, when set, decides whether each snippet (after the review)
	// may run. A denial goes back to the coder as the tool's error result,
	// with the reason.
	Approver Approver
	// ErrorHandler turns a failed run into a correction request that goes
	// back to the coder with the error (a [compose.Failure] in, {"message": …}
	// out); nil uses [compose.NewErrorHandler], which needs no model.
	ErrorHandler agent.Agent
	// MaxRetries is the retry budget: how many rejected, denied or failed
	// snippets the coder may follow with another one (default
	// DefaultMaxRetries; negative means none). The next failure ends the
	// run with a [*compose.RetriesError].
	MaxRetries int `config:"negative"`
	// MaxTurns bounds the coder's model calls (default
	// agent.DefaultMaxTurns).
	MaxTurns int
	// Toolsets offer the coder more tools beside the sandbox, as an MCP
	// server's (package mcp), asked for their tools at each run.
	Toolsets []agent.Toolset
	// SandboxTools offer tools to the coder's snippets ("code mode"): the
	// code calls each as an async function, const r = await
	// tools.get_sum({a: 2, b: 40}), and can combine many calls in one
	// snippet instead of one model turn each. They are asked for their
	// tools at each run; the coder's input then carries their TypeScript
	// declarations (field [SandboxFunctionsKey]), which the default
	// instructions list. Each call is a nested run of the snippet's
	// sandbox run, traced, checked against the tool's schema and bounded
	// by SandboxCalls and the sandbox's limits (see [jstool.WithToolsets]).
	// The code gets a call's JSON output: parts of a result beyond it
	// (an MCP tool's images or audio) do not reach the code.
	// They need the sandbox tool codeexec makes: Tool must be nil, and
	// Sandbox, when set, a [sandbox.ToolRunner].
	SandboxTools []agent.Toolset
	// SandboxCalls bounds the calls of one snippet to SandboxTools; zero
	// fields take their defaults (sandbox.DefaultMaxCalls calls,
	// sandbox.DefaultMaxInFlight at once), negative ones are invalid.
	SandboxCalls sandbox.CallLimits
	// Knowledge, when set, is a vector store of earlier snippets: before
	// the coder starts, the snippets kept for the most similar tasks (up to
	// Recall, scoring at least MinRecallScore) are added to its input, and
	// after a run that answered, the last snippet that ran is kept there
	// for the task (documents of kind [SnippetKind]). The store needs an
	// embedder for text (vector.MemoryConfig.Embedder).
	Knowledge vector.Store
	// Recall is how many earlier snippets are recalled (default
	// DefaultRecall).
	Recall int
	// MinRecallScore is the least similarity a recalled snippet must have
	// (default 0: any).
	MinRecallScore float32 `config:"negative"`
}

// CodeExecution is the Coder→Sandbox workflow: a coder (an AI agent taught
// the sandbox's rules) answers the input by writing code and running it
// with the sandbox tool, then answers with the computed value. Each snippet
// the coder submits goes through, in order:
//
//  1. the Reviewer, which may reject it with feedback;
//  2. the Approver, which may deny it with a reason;
//  3. the Sandbox; a failure goes through the ErrorHandler, whose
//     correction request is appended to the error.
//
// Every refusal or failure reaches the coder as the tool's error result, so
// it can correct itself and the run ends with an answer. Each one spends
// one retry; when the budget is spent, the next one ends the run at once
// with a [*compose.RetriesError] wrapping [compose.ErrRetriesExhausted] and the last
// failure.
//
// In a [github.com/loomwork/loom/engine.Session], the earlier turns are passed to the coder, and the
// coder's messages are the turn recorded.
type CodeExecution struct {
	flow.Base
	cfg    Config
	coder  *agent.AI
	owned  sandbox.Executor // the executor the workflow started, if any
	keeper agent.Agent      // keeps a snippet in Knowledge
}

// CodeState is the progress of one CodeExecution run, its
// [agent.Run.State]. It is counted from the snippets' ends as they pass
// through the run, so a resumed run counts the snippets it replays.
type CodeState struct {
	// Task is the request being answered.
	Task string `json:"task"`
	// Tries counts the snippets submitted so far.
	Tries int `json:"tries"`
	// Failed counts the snippets refused or failed so far.
	Failed int `json:"failed"`
	// LastCode is the last snippet that ran without an error.
	LastCode string `json:"last_code,omitempty"`

	mu      sync.Mutex
	tool    string // the sandbox tool's name: the coder's other tools are not snippets
	coderID string
	codes   map[string]string // snippet run id -> its code
}

// observe follows the snippets: the coder's tool runs (guards), whose
// starts carry the code and whose ends say how each went.
func (st *CodeState) observe(ev agent.Event) {
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.coderID == "" {
		if ev.Kind == agent.EventRunStart {
			st.coderID = ev.RunID
		}
		return
	}
	if ev.ParentID != st.coderID || ev.Agent != st.tool {
		return
	}
	switch ev.Kind {
	case agent.EventRunStart:
		if st.codes == nil {
			st.codes = map[string]string{}
		}
		st.codes[ev.RunID] = codeOf(ev.Input)
	case agent.EventRunEnd:
		st.Tries++
		if ev.Err != nil {
			st.Failed++
		} else if code := st.codes[ev.RunID]; code != "" {
			st.LastCode = code
		}
	}
}

func (st *CodeState) lastCode() string {
	st.mu.Lock()
	defer st.mu.Unlock()
	return st.LastCode
}

func (st *CodeState) counts() (tries, failed int) {
	st.mu.Lock()
	defer st.mu.Unlock()
	return st.Tries, st.Failed
}

// New checks cfg and returns the workflow.
func New(cfg Config) (*CodeExecution, error) {
	if cfg.Name == "" {
		cfg.Name = "code_execution"
	}
	if cfg.Description == "" {
		cfg.Description = "Answers a question by writing JavaScript, running it in a sandbox and reporting the computed result."
	}
	if err := config.Check("codeexec.Config", cfg); err != nil {
		return nil, fmt.Errorf("%w: code execution %s: %w", agent.ErrInvalidConfig, cfg.Name, err)
	}
	switch {
	case cfg.Recall == 0:
		cfg.Recall = DefaultRecall
	case cfg.Recall < 0:
		return nil, fmt.Errorf("%w: code execution %s: Recall is %d; use 0 for the default (%d) or a positive count", agent.ErrInvalidConfig, cfg.Name, cfg.Recall, DefaultRecall)
	}
	if len(cfg.SandboxTools) > 0 && cfg.Tool != nil {
		return nil, fmt.Errorf("%w: code execution %s: SandboxTools are offered through the sandbox tool codeexec makes, and Tool is set: leave Tool nil (pass the executor as Sandbox), or build the tool with jstool.New(exec, jstool.WithToolsets(...))", agent.ErrInvalidConfig, cfg.Name)
	}
	var owned sandbox.Executor
	if cfg.Tool == nil {
		exec := cfg.Sandbox
		if exec == nil {
			iso, err := sandbox.NewIsolated()
			if err != nil {
				return nil, fmt.Errorf("code execution %s: start the isolated sandbox (or pass Sandbox or Tool): %w", cfg.Name, err)
			}
			exec, owned = iso, iso
		}
		var opts []jstool.Option
		if len(cfg.SandboxTools) > 0 {
			opts = append(opts, jstool.WithToolsets(cfg.SandboxTools...), jstool.WithCallLimits(cfg.SandboxCalls))
		}
		tool, err := jstool.New(exec, opts...)
		if err != nil {
			closeOwned(owned)
			return nil, fmt.Errorf("code execution %s: %w", cfg.Name, err)
		}
		cfg.Tool = tool
	}
	if cfg.Instructions == "" {
		// loom's sandbox awaits a final Promise and allows top-level await.
		cfg.Instructions = CoderInstructions(cfg.Tool.Name(), cfg.Tool.Name() == jstool.Name)
		if len(cfg.SandboxTools) > 0 {
			cfg.Instructions += SandboxFunctionsInstructions
		}
	}
	switch {
	case cfg.MaxRetries == 0:
		cfg.MaxRetries = DefaultMaxRetries
	case cfg.MaxRetries < 0:
		cfg.MaxRetries = 0
	}
	if cfg.ErrorHandler == nil {
		h, err := compose.NewErrorHandler()
		if err != nil {
			closeOwned(owned)
			return nil, err
		}
		cfg.ErrorHandler = h
	}
	ce := &CodeExecution{cfg: cfg, owned: owned}
	coder, err := agent.NewAI(agent.AIConfig{
		Name:         "coder",
		Description:  "Writes JavaScript, runs it in the sandbox and answers with the result.",
		Instructions: cfg.Instructions,
		Model:        cfg.Model,
		Options:      cfg.Options,
		Tools:        []agent.Agent{&guard{ce: ce, tool: cfg.Tool}},
		Toolsets:     cfg.Toolsets,
		MaxTurns:     cfg.MaxTurns,
	})
	if err != nil {
		closeOwned(owned)
		return nil, fmt.Errorf("code execution %s: %w", cfg.Name, err)
	}
	ce.coder = coder
	if cfg.Knowledge != nil {
		keeper, err := agent.NewFunc("keep_snippet", "Keeps the snippet that answered a task in the knowledge store.",
			func(ctx context.Context, in snippetInput) (struct{}, error) {
				return struct{}{}, ce.keep(ctx, in.Task, in.Code)
			})
		if err != nil {
			closeOwned(owned)
			return nil, err
		}
		ce.keeper = keeper
	}
	b, err := flow.NewBase("code execution", cfg.Name, cfg.Description, coder.InputSchema(), coder.OutputSchema())
	if err != nil {
		closeOwned(owned)
		return nil, err
	}
	ce.Base = b
	return ce, nil
}

// Close stops the sandbox executor the workflow started itself (when the
// config gave neither Tool nor Sandbox); otherwise it does nothing.
func (ce *CodeExecution) Close() error {
	if ce.owned == nil {
		return nil
	}
	return ce.owned.Close()
}

func closeOwned(e sandbox.Executor) {
	if e != nil {
		_ = e.Close()
	}
}

// Coder returns the coder agent.
func (ce *CodeExecution) Coder() *agent.AI { return ce.coder }

// Run answers input.
func (ce *CodeExecution) Run(ctx context.Context, input json.RawMessage) iter.Seq2[agent.Event, error] {
	return agent.Execute(ctx, ce, input, ce.body)
}

func (ce *CodeExecution) body(ctx context.Context, r *agent.Run) (json.RawMessage, error) {
	st := &CodeState{Task: flow.TextOf(r.Input), tool: ce.cfg.Tool.Name()}
	r.SetState(st)
	stop := r.Observe(st.observe)
	defer stop()
	if hist := r.History(ctx); len(hist) > 0 {
		ctx = agent.WithHistory(ctx, hist)
	}
	input := r.Input
	if ce.cfg.Knowledge != nil {
		text, err := ce.recall(ctx, st.Task)
		if err != nil {
			return nil, err
		}
		if input, err = json.Marshal(map[string]string{agent.DefaultTextKey: text}); err != nil {
			return nil, err
		}
	}
	if len(ce.cfg.SandboxTools) > 0 {
		var err error
		if input, err = ce.withFunctions(ctx, input); err != nil {
			return nil, err
		}
	}
	end, err := r.Child(ctx, ce.coder, input)
	if errors.Is(err, agent.ErrStopped) {
		return nil, err
	}
	var re *compose.RetriesError
	if errors.As(err, &re) {
		return nil, re
	}
	if errors.Is(err, agent.ErrInterrupted) {
		return nil, err
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", ce.Name(), err)
	}
	if code := st.lastCode(); ce.cfg.Knowledge != nil && code != "" {
		// Keeping is a nested run, so a store that fails shows in the
		// events and the trace; the answer stands either way.
		in, _ := json.Marshal(snippetInput{Task: st.Task, Code: code})
		if _, err := r.Call(ctx, ce.keeper, in); errors.Is(err, agent.ErrStopped) {
			return nil, err
		}
	}
	r.SetMessages(end.Messages)
	return end.Output, nil
}

// guard is the sandbox tool as the coder sees it: each call passes the
// reviewer, the approver and the retry budget before the sandbox runs it.
type guard struct {
	ce   *CodeExecution
	tool agent.Agent
}

func (g *guard) Name() string                  { return g.tool.Name() }
func (g *guard) Description() string           { return g.tool.Description() }
func (g *guard) InputSchema() json.RawMessage  { return g.tool.InputSchema() }
func (g *guard) OutputSchema() json.RawMessage { return g.tool.OutputSchema() }

// Kind returns "guard".
func (g *guard) Kind() string { return "guard" }

func (g *guard) Run(ctx context.Context, input json.RawMessage) iter.Seq2[agent.Event, error] {
	return agent.Execute(ctx, g, input, g.body)
}

func (g *guard) body(ctx context.Context, r *agent.Run) (json.RawMessage, error) {
	st := g.state(r)
	code := codeOf(r.Input)
	tries, _ := st.counts()
	attempt := tries + 1
	cfg := &g.ce.cfg

	var review *compose.Review
	if cfg.Reviewer != nil && code != "" {
		in := flow.Message(codeReviewPrompt(st.Task, code), map[string]any{"task": st.Task, "code": code})
		out, err := r.Call(ctx, cfg.Reviewer, in)
		if err != nil {
			return nil, compose.RoleError("reviewer", cfg.Reviewer, err)
		}
		rev, err := compose.DecodeReview(cfg.Reviewer.Name(), out)
		if err != nil {
			return nil, err
		}
		if !rev.Approved {
			return nil, g.refuse(st, fmt.Errorf("%w: %s (revise the code and call %s again)", ErrRejected, strings.TrimRight(compose.Feedback(rev), ". "), g.Name()))
		}
		review = &rev
	}
	if cfg.Approver != nil && code != "" {
		req := ApprovalRequest{Code: code, Task: st.Task, Attempt: attempt, Review: review}
		a, err := cfg.Approver.Approve(ctx, req)
		if errors.Is(err, ErrPending) {
			a, err = askApproval(ctx, req)
			if err != nil {
				return nil, err
			}
		}
		if err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			a = Approval{Reason: "no approval could be obtained: " + err.Error()}
		}
		if !a.Approved {
			reason := strings.TrimSpace(a.Reason)
			if reason == "" {
				reason = DeclinedReason
			}
			return nil, g.refuse(st, fmt.Errorf("%w: %s (do not run this code again: change your approach, or explain to the user why you cannot answer)", ErrDenied, strings.TrimRight(reason, ". ")))
		}
	}
	out, err := r.Call(ctx, g.tool, r.Input)
	if err == nil || flow.Ends(ctx, err) {
		return out, err
	}
	failure := compose.Failure{Task: st.Task, Code: code, Error: err.Error()}
	if exhausted := g.count(st, err); exhausted != nil {
		return nil, exhausted
	}
	_, failed := st.counts()
	failure.Attempt, failure.Remaining = failed+1, cfg.MaxRetries-failed
	fix, herr := compose.Correct(ctx, r, cfg.ErrorHandler, failure)
	if herr != nil {
		if herr == agent.ErrStopped {
			return nil, herr
		}
		return nil, err
	}
	return nil, corrected(err, fix)
}

// correctedError is a failed snippet's error as the coder reads it: the
// error once, then the correction request with its one retry hint. It
// matches the sandbox's error for errors.Is and errors.As.
type correctedError struct {
	err  error
	text string
}

func (e *correctedError) Error() string { return e.text }
func (e *correctedError) Unwrap() error { return e.err }

// corrected joins err and the correction request fix, leaving out err's
// text when fix already quotes it (the default error handler's does).
func corrected(err error, fix string) error {
	msg := err.Error()
	if strings.Contains(fix, msg) {
		return &correctedError{err: err, text: fix}
	}
	return &correctedError{err: err, text: msg + "\n" + fix}
}

// refuse counts a refused snippet against the budget.
func (g *guard) refuse(st *CodeState, err error) error {
	if exhausted := g.count(st, err); exhausted != nil {
		return exhausted
	}
	return err
}

// count checks the budget for one more failure; when none is left it
// returns a RetriesError that halts the coder and ends the workflow run.
func (g *guard) count(st *CodeState, err error) error {
	_, failed := st.counts()
	n := failed + 1
	if n <= g.ce.cfg.MaxRetries {
		return nil
	}
	return agent.Halt(&compose.RetriesError{Workflow: g.ce.Name(), Attempts: n, Retries: g.ce.cfg.MaxRetries, Last: err})
}

// state finds the state of the CodeExecution run the guard runs beneath.
func (g *guard) state(r *agent.Run) *CodeState {
	for p := r.Parent(); p != nil; p = p.Parent() {
		if st, ok := p.State().(*CodeState); ok && p.Agent == agent.Agent(g.ce) {
			return st
		}
	}
	return &CodeState{}
}

// askApproval turns a pending approval into a question and decodes its
// answer.
func askApproval(ctx context.Context, req ApprovalRequest) (Approval, error) {
	ans, err := agent.Ask(ctx, ApprovalKind, req, ApprovalSchema)
	if err != nil {
		return Approval{}, err
	}
	var a Approval
	if err := json.Unmarshal(ans, &a); err != nil {
		return Approval{}, fmt.Errorf("%w: approval answer %s: %w", agent.ErrInvalidAnswer, ans, err)
	}
	return a, nil
}

// codeOf reads the snippet from a sandbox tool's arguments: "code", or the
// TypeScript framework's "jsCode".
func codeOf(args json.RawMessage) string {
	var v struct {
		Code   string `json:"code"`
		JSCode string `json:"jsCode"`
	}
	_ = json.Unmarshal(args, &v)
	if v.Code != "" {
		return v.Code
	}
	return v.JSCode
}

func codeReviewPrompt(task, code string) string {
	return "Review this JavaScript before it runs in the sandbox. Approve it when it is safe and correctly solves the task; otherwise reject it and say exactly what to change.\n\nTask: " +
		task + "\n\nCode:\n```js\n" + code + "\n```"
}
