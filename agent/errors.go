package agent

import (
	"errors"
	"fmt"
	"strings"
	"time"
)

// Sentinel errors, for errors.Is.
var (
	// ErrInvalidConfig marks a constructor given configuration it cannot use.
	ErrInvalidConfig = errors.New("invalid agent configuration")
	// ErrInvalidInput marks input that is not valid JSON or fails the
	// agent's input schema; see [ValidationError].
	ErrInvalidInput = errors.New("invalid input")
	// ErrInvalidOutput marks model output that is not valid JSON for the
	// output schema after the repair turns ran out.
	ErrInvalidOutput = errors.New("invalid output")
	// ErrNoModel marks an AI agent run with no model anywhere: not on the
	// agent, not for the run, not as the engine default.
	ErrNoModel = errors.New("no model configured")
	// ErrNoRoute marks a router agent whose model called no tool.
	ErrNoRoute = errors.New("router chose no agent")
	// ErrLimit marks a breached limit; see [LimitError].
	ErrLimit = errors.New("limit exceeded")
	// ErrPanic marks a panic recovered inside an agent.
	ErrPanic = errors.New("agent panicked")
	// ErrUnknownTool marks a tool call naming no tool of the agent.
	ErrUnknownTool = errors.New("unknown tool")
)

// ValidationError reports JSON that does not match a schema. It wraps
// [ErrInvalidInput] or [ErrInvalidOutput].
type ValidationError struct {
	Agent  string  // the agent whose schema was checked
	What   string  // "input" or "output"
	Issues []Issue // each failing field and rule
	kind   error
}

// Issue is one schema violation: the field path (dotted, empty for the
// whole value) and the rule that failed.
type Issue struct {
	Path string
	Rule string
}

// String returns the issue as text.
func (i Issue) String() string {
	if i.Path == "" {
		return i.Rule
	}
	return i.Path + ": " + i.Rule
}

// Error returns the error's message.
func (e *ValidationError) Error() string {
	parts := make([]string, len(e.Issues))
	for i, is := range e.Issues {
		parts[i] = is.String()
	}
	return fmt.Sprintf("invalid %s for %s: %s", e.What, e.Agent, strings.Join(parts, "; "))
}

// Unwrap returns [ErrInvalidInput] or [ErrInvalidOutput].
func (e *ValidationError) Unwrap() error { return e.kind }

// The limits a [LimitError] can name.
const (
	LimitInvocations = "max agent invocations"
	LimitTokens      = "max tokens"
	LimitTimeout     = "timeout"
	LimitTurns       = "max turns"
)

// LimitError reports a breached limit with its figures, as
// "max tokens exceeded: 300 used, limit 200". It wraps [ErrLimit], and for
// the timeout also context.DeadlineExceeded.
type LimitError struct {
	Limit string // one of LimitInvocations, LimitTokens, LimitTimeout, LimitTurns
	Used  int64  // invocations, tokens, turns, or elapsed milliseconds
	Max   int64  // the limit, in the same unit
	cause error
}

// Error returns the error's message.
func (e *LimitError) Error() string {
	switch e.Limit {
	case LimitTimeout:
		return fmt.Sprintf("timeout exceeded: %v elapsed, limit %v", time.Duration(e.Used)*time.Millisecond, time.Duration(e.Max)*time.Millisecond)
	case LimitTurns:
		return fmt.Sprintf("max turns exceeded: the model was called %d times without giving an answer, limit %d", e.Used, e.Max)
	case LimitInvocations:
		return fmt.Sprintf("max agent invocations exceeded: %d invocations, limit %d", e.Used, e.Max)
	}
	return fmt.Sprintf("%s exceeded: %d used, limit %d", e.Limit, e.Used, e.Max)
}

// Unwrap returns [ErrLimit] and, for a timeout, the context error.
func (e *LimitError) Unwrap() []error {
	if e.cause != nil {
		return []error{ErrLimit, e.cause}
	}
	return []error{ErrLimit}
}

// ToolError is a tool's failure as the AI agent saw it. With
// AIConfig.FailOnToolError the run fails with it; it wraps the tool's error.
type ToolError struct {
	Tool   string
	CallID string
	Err    error
}

// Error returns the error's message.
func (e *ToolError) Error() string { return fmt.Sprintf("tool %s failed: %v", e.Tool, e.Err) }

// Unwrap returns the tool's error.
func (e *ToolError) Unwrap() error { return e.Err }
