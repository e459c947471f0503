package codeexec

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/loomwork/loom/agent"
	"github.com/loomwork/loom/agent/agentrt"
	"github.com/loomwork/loom/compose"
	"github.com/loomwork/loom/internal/flow"
	"github.com/loomwork/loom/sandbox/jstool"
)

// The names of the guardrails a snippet passes before it runs, as traces
// show them.
const (
	reviewGuardrail   = "code_review"
	approvalGuardrail = "code_approval"
)

// snippet is one call of the sandbox tool as its guards see it: the code,
// decoded once from the arguments, and what the guards decided. It is the
// state of the call's run.
type snippet struct {
	code    string
	review  *compose.Review
	refusal error // why a guard refused the code, as the coder reads it
}

// runGuards are the guards of the sandbox tool in one CodeExecution run:
// the reviewer, the approver and the error handler, spending the retry
// budget of the run's [CodeState].
type runGuards struct {
	ce    *CodeExecution
	st    *CodeState
	tools [1]agent.Agent // the guarded sandbox tool
}

// Tools returns the guarded sandbox tool: runGuards is the run's toolset.
func (g *runGuards) Tools(context.Context) ([]agent.Agent, error) { return g.tools[:], nil }

// sandboxTool returns the toolset that gives the coder of the run whose
// state is st the sandbox tool, guarded: the reviewer and the approver
// before each call, the error handler on each failure, and st's retry
// budget over all of them, counted as calls end (OnEnd), replayed ones
// included.
func (ce *CodeExecution) sandboxTool(st *CodeState) (agent.Toolset, error) {
	g := &runGuards{ce: ce, st: st}
	var guards agent.ToolGuards
	if ce.cfg.Reviewer != nil {
		guards.Before = append(guards.Before, agent.Guardrail{Name: reviewGuardrail, Check: g.review})
	}
	if ce.cfg.Approver != nil {
		guards.Before = append(guards.Before, agent.Guardrail{Name: approvalGuardrail, Check: g.approve})
	}
	guards.OnError, guards.OnEnd = g.onError, st.ended
	guarded, err := agent.GuardTool(ce.cfg.Tool, guards)
	if err != nil {
		return nil, err
	}
	g.tools[0] = guarded
	return g, nil
}

// snippetOf returns the call being guarded, reading its code on first
// use: from the arguments as the sandbox tool decoded them (args, when the
// tool is one built on an agent.Func, such as jstool's), else from their
// JSON.
func snippetOf(ctx context.Context, raw json.RawMessage, args any) *snippet {
	r := agent.CurrentRun(ctx)
	if r != nil {
		if s, ok := agentrt.State(r).(*snippet); ok {
			return s
		}
	}
	var s *snippet
	if in, ok := args.(jstool.Input); ok {
		s = &snippet{code: cmp.Or(in.Code, in.JSCode)}
	} else {
		s = &snippet{code: codeOf(raw)}
	}
	if r != nil {
		agentrt.SetState(r, s)
	}
	return s
}

// review asks the reviewer about the snippet.
func (g *runGuards) review(ctx context.Context, in agent.GuardInput) (agent.Verdict, error) {
	s := snippetOf(ctx, in.Content, in.Args)
	if s.code == "" {
		return agent.Allow(), nil // the tool refuses it with its own message
	}
	rev := g.ce.cfg.Reviewer
	msg := flow.Message(codeReviewPrompt(g.st.Task, s.code), map[string]any{"task": g.st.Task, "code": s.code})
	out, err := agent.CurrentRun(ctx).Call(ctx, rev, msg)
	if err != nil {
		return agent.Verdict{}, &guardError{compose.RoleError("reviewer", rev, err)}
	}
	v, err := compose.DecodeReview(rev.Info().Name, out)
	if err != nil {
		return agent.Verdict{}, &guardError{err}
	}
	if !v.Approved {
		s.refusal = fmt.Errorf("%w: %s (revise the code and call %s again)", ErrRejected, strings.TrimRight(compose.Feedback(v), ". "), in.Agent)
		return agent.Reject(compose.Feedback(v)), nil
	}
	s.review = &v
	return agent.Allow(), nil
}

// approve asks the approver whether the snippet may run.
func (g *runGuards) approve(ctx context.Context, in agent.GuardInput) (agent.Verdict, error) {
	s := snippetOf(ctx, in.Content, in.Args)
	if s.code == "" {
		return agent.Allow(), nil
	}
	tries, _ := g.st.counts()
	req := ApprovalRequest{Code: s.code, Task: g.st.Task, Attempt: tries + 1, Review: s.review}
	a, err := g.ce.cfg.Approver.Approve(ctx, req)
	if errors.Is(err, ErrPending) {
		a, err = askApproval(ctx, req)
		if err != nil {
			return agent.Verdict{}, err
		}
	}
	if err != nil {
		if ctx.Err() != nil {
			return agent.Verdict{}, ctx.Err()
		}
		a = Approval{Reason: "no approval could be obtained: " + err.Error()}
	}
	if a.Approved {
		return agent.Allow(), nil
	}
	reason := strings.TrimSpace(a.Reason)
	if reason == "" {
		reason = DeclinedReason
	}
	s.refusal = fmt.Errorf("%w: %s (do not run this code again: change your approach, or explain to the user why you cannot answer)", ErrDenied, strings.TrimRight(reason, ". "))
	return agent.Reject(reason), nil
}

// guardError is a guard that could not decide (the reviewer failed): the
// coder reads the error as it is, without the guardrail's framing.
type guardError struct{ err error }

func (e *guardError) Error() string { return e.err.Error() }
func (e *guardError) Unwrap() error { return e.err }

// onError turns a refused or failed snippet into what the coder reads:
// the refusal, or the sandbox's error with the error handler's correction
// request; when the retry budget is spent, a halt that ends the run.
func (g *runGuards) onError(ctx context.Context, args json.RawMessage, err error) error {
	if flow.Ends(ctx, err) {
		return err
	}
	var ge *guardError
	if errors.As(err, &ge) {
		return ge.err
	}
	s := snippetOf(ctx, args, nil)
	if s.refusal != nil {
		err = s.refusal
	}
	_, failed := g.st.counts()
	if n := failed + 1; n > g.ce.cfg.MaxRetries {
		return agent.Halt(&compose.RetriesError{Workflow: g.ce.Info().Name, Attempts: n, Retries: g.ce.cfg.MaxRetries, Last: err})
	}
	if s.refusal != nil {
		return err
	}
	failure := compose.Failure{Task: g.st.Task, Code: s.code, Error: err.Error(), Attempt: failed + 1, Remaining: g.ce.cfg.MaxRetries - failed}
	fix, herr := compose.Correct(ctx, agent.CurrentRun(ctx), g.ce.cfg.ErrorHandler, failure)
	if herr != nil {
		if herr == agentrt.ErrStopped {
			return herr
		}
		return err
	}
	return corrected(err, fix)
}
