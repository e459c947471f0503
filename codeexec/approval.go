package codeexec

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"

	"github.com/loomwork/loom/compose"
	"github.com/loomwork/loom/internal/termtext"
)

// ApprovalRequest is what an [Approver] decides on: code about to run.
type ApprovalRequest struct {
	// Code is the snippet about to run.
	Code string `json:"code"`
	// Task is the request the code is meant to solve.
	Task string `json:"task"`
	// Attempt counts the snippets submitted in this run, from 1.
	Attempt int `json:"attempt"`
	// Review is the reviewer's verdict, when a reviewer approved the code.
	Review *compose.Review `json:"review,omitempty"`
}

// Approval is an [Approver]'s decision. A denial's Reason reaches the
// coder, so it can change its approach or explain.
type Approval struct {
	Approved bool   `json:"approved"`
	Reason   string `json:"reason,omitempty"`
}

// ErrPending is what an [Approver] returns when the decision is not made
// yet: the snippet becomes a question of kind [ApprovalKind] (an
// [agent.Ask]), the run ends with an [*agent.InterruptedError], and a
// person can approve or deny it later, from another process, by resuming
// the run with an [Approval] as the answer.
var ErrPending = errors.New("approval pending")

// ApprovalKind is the kind of the question a pending approval asks; its
// payload is the [ApprovalRequest] and its answer an [Approval].
const ApprovalKind = "approval"

// ApprovalSchema is the JSON schema of an approval's answer.
var ApprovalSchema = json.RawMessage(`{"type":"object","properties":{"approved":{"type":"boolean"},"reason":{"type":"string"}},"required":["approved"],"additionalProperties":false}`)

// Approver decides whether generated code may run: a human at a terminal,
// a policy, or another service. An error counts as a denial, with the error
// as the reason, except [ErrPending], which waits for a person.
type Approver interface {
	Approve(ctx context.Context, req ApprovalRequest) (Approval, error)
}

// ApproverFunc is an [Approver] as a function.
type ApproverFunc func(ctx context.Context, req ApprovalRequest) (Approval, error)

// Approve calls f.
func (f ApproverFunc) Approve(ctx context.Context, req ApprovalRequest) (Approval, error) {
	return f(ctx, req)
}

// DeclinedReason is the reason given when a person declines without saying
// why.
const DeclinedReason = "the user declined to run it"

// PromptApprover shows each snippet on Out and asks a yes/no question
// through Ask. "y" or "yes" (any case) approves; an empty answer, "n" or
// "no" declines; any other answer declines with that answer as the reason.
// Calls are serialised, so concurrent snippets are asked one at a time.
type PromptApprover struct {
	Out io.Writer
	Ask func(ctx context.Context, question string) (string, error)
	mu  sync.Mutex
}

// NewLineApprover returns a [PromptApprover] that reads answers, one line
// each, from in and writes to out: for a terminal, pass it (or /dev/tty)
// for both. Reading blocks until a line arrives; the end of input declines.
func NewLineApprover(in io.Reader, out io.Writer) *PromptApprover {
	br := bufio.NewReader(in)
	return &PromptApprover{Out: out, Ask: func(_ context.Context, question string) (string, error) {
		if _, err := io.WriteString(out, question); err != nil {
			return "", err
		}
		line, err := br.ReadString('\n')
		if err != nil && line == "" {
			return "", fmt.Errorf("no answer: %w", err)
		}
		return line, nil
	}}
}

// Approve shows the code and asks.
func (p *PromptApprover) Approve(ctx context.Context, req ApprovalRequest) (Approval, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if err := ctx.Err(); err != nil {
		return Approval{}, err
	}
	if p.Out != nil {
		fmt.Fprintf(p.Out, "\n--- code to run (snippet %d) ---\n%s\n---\n", req.Attempt, termtext.Safe(strings.TrimRight(req.Code, "\n")))
	}
	answer, err := p.Ask(ctx, "Run it? [y/N] (or type why not): ")
	if err != nil {
		return Approval{}, err
	}
	return ParseApproval(answer), nil
}

// ParseApproval reads a person's answer as [PromptApprover] does.
func ParseApproval(answer string) Approval {
	a := strings.TrimSpace(answer)
	switch strings.ToLower(a) {
	case "y", "yes":
		return Approval{Approved: true}
	case "", "n", "no":
		return Approval{Reason: DeclinedReason}
	}
	return Approval{Reason: a}
}
