package codeexec

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/loomwork/loom/agent"
	"github.com/loomwork/loom/agent/agentrt"
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
	// MaxTurns bounds the coder's model calls (default 10).
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
	// by SandboxCalls and the sandbox's limits (see [jstool.Config.Toolsets]).
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
// The reviewer and the approver are guardrails before the call and the
// error handler its OnError guard ([agent.GuardTool]), so one snippet is
// one run of the sandbox tool: the reviewer's run, the approval question
// and the sandbox's span are all inside it.
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
	*agent.Custom
	cfg    Config
	coder  *agent.AI
	owned  sandbox.Executor // the executor the workflow started, if any
	keeper agent.Agent      // keeps a snippet in Knowledge
}

// CodeState is the progress of one CodeExecution run, its
// [agentrt.State]. The run's sandbox tool holds it: each call of the
// tool that ends, replayed ones of a resumed run included, counts here
// (see agent.ToolGuards.OnEnd).
type CodeState struct {
	// Task is the request being answered.
	Task string `json:"task"`
	// Tries counts the snippets submitted so far.
	Tries int `json:"tries"`
	// Failed counts the snippets refused or failed so far.
	Failed int `json:"failed"`
	// LastCode is the last snippet that ran without an error.
	LastCode string `json:"last_code,omitempty"`

	mu       sync.Mutex
	keepCode bool // LastCode is read (by Knowledge)
}

// ended counts one call of the sandbox tool that ended with err.
func (st *CodeState) ended(args json.RawMessage, err error) {
	st.mu.Lock()
	defer st.mu.Unlock()
	st.Tries++
	switch {
	case err != nil:
		st.Failed++
	case st.keepCode:
		if code := codeOf(args); code != "" {
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
		return nil, fmt.Errorf("%w: code execution %s: SandboxTools are offered through the sandbox tool codeexec makes, and Tool is set: leave Tool nil (pass the executor as Sandbox), or build the tool with jstool.New(exec, jstool.Config{Toolsets: ...})", agent.ErrInvalidConfig, cfg.Name)
	}
	var owned sandbox.Executor
	if cfg.Tool == nil {
		exec := cfg.Sandbox
		if exec == nil {
			iso, err := sandbox.NewIsolated(sandbox.IsolatedConfig{})
			if err != nil {
				return nil, fmt.Errorf("code execution %s: start the isolated sandbox (or pass Sandbox or Tool): %w", cfg.Name, err)
			}
			exec, owned = iso, iso
		}
		var tc jstool.Config
		if len(cfg.SandboxTools) > 0 {
			tc = jstool.Config{Toolsets: cfg.SandboxTools, CallLimits: cfg.SandboxCalls}
		}
		tool, err := jstool.New(exec, tc)
		if err != nil {
			closeOwned(owned)
			return nil, fmt.Errorf("code execution %s: %w", cfg.Name, err)
		}
		cfg.Tool = tool
	}
	if cfg.Instructions == "" {
		// loom's sandbox awaits a final Promise and allows top-level await.
		cfg.Instructions = CoderInstructions(cfg.Tool.Info().Name, cfg.Tool.Info().Name == jstool.Name)
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
	coderInfo := coder.Info()
	c, err := agent.New(agent.Info{Name: cfg.Name, Description: cfg.Description, Kind: flow.Kind, InputSchema: coderInfo.InputSchema, OutputSchema: coderInfo.OutputSchema}, ce.body)
	if err != nil {
		closeOwned(owned)
		return nil, fmt.Errorf("code execution: %w", err)
	}
	ce.Custom = c
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

// Coder returns the coder agent as configured, without the sandbox tool:
// each run gives it the tool, guarded for that run (see [agent.AI.WithToolsets]).
func (ce *CodeExecution) Coder() *agent.AI { return ce.coder }

// body is the run of the workflow: it answers input.
func (ce *CodeExecution) body(ctx context.Context, r *agent.Run) (json.RawMessage, error) {
	st := &CodeState{Task: flow.TextOf(r.Input), keepCode: ce.cfg.Knowledge != nil}
	agentrt.SetState(r, st)
	tool, err := ce.sandboxTool(st)
	if err != nil {
		return nil, err
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
	end, err := agentrt.ChildWithHistory(ctx, r, ce.coder.WithToolsets(tool), input, agentrt.History(r))
	if errors.Is(err, agentrt.ErrStopped) {
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
		return nil, fmt.Errorf("%s: %w", ce.Info().Name, err)
	}
	if code := st.lastCode(); ce.cfg.Knowledge != nil && code != "" {
		// Keeping is a nested run, so a store that fails shows in the
		// events and the trace; the answer stands either way.
		in, _ := json.Marshal(snippetInput{Task: st.Task, Code: code})
		if _, err := r.Call(ctx, ce.keeper, in); errors.Is(err, agentrt.ErrStopped) {
			return nil, err
		}
	}
	agentrt.SetMessages(r, end.Messages)
	return end.Output, nil
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
