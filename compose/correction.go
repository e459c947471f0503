package compose

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/loomwork/loom/agent"
	"github.com/loomwork/loom/internal/flow"
)

// Failure is what an error handler receives: a failed attempt, described
// both as fields and as a Message an AI error handler reads as its request.
type Failure struct {
	// Message describes the failure in plain language, with the code.
	Message string `json:"message"`
	// Task is the work the attempt was for, when known.
	Task string `json:"task,omitempty"`
	// Code is the code that failed, when the attempt ran code.
	Code string `json:"code,omitempty"`
	// Solution is the attempt's output, when it was not code.
	Solution json.RawMessage `json:"solution,omitempty"`
	// Error is the failure's message.
	Error string `json:"error"`
	// Attempt counts the failed attempts so far, from 1.
	Attempt int `json:"attempt"`
	// Remaining is the retries left, the next one included.
	Remaining int `json:"remaining"`
}

// Correction is an error handler's output: the correction request sent
// back to the worker.
type Correction struct {
	Message string `json:"message" jsonschema:"description=what went wrong and what to change, addressed to the author of the failed code"`
}

// NewErrorHandler returns the default error handler: a function agent named
// "error_handler" that turns a [Failure] into a [Correction] without a
// model call, naming the error and the retries left.
func NewErrorHandler() (*agent.Func[Failure, Correction], error) {
	return agent.NewFunc("error_handler", "Turns a failed attempt into a correction request.", func(_ context.Context, f Failure) (Correction, error) {
		return Correction{Message: CorrectionRequest(f)}, nil
	})
}

// CorrectionRequest is the default error handler's text for f.
func CorrectionRequest(f Failure) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Attempt %d failed: %s\n", f.Attempt, f.Error)
	switch f.Remaining {
	case 0:
		b.WriteString("No retries are left: explain the problem to the user instead of trying again.")
	case 1:
		b.WriteString("Find the cause and fix it. This is the last retry: if it fails too, the run ends, so if you cannot fix it, explain the problem to the user instead.")
	default:
		fmt.Fprintf(&b, "Find the cause, fix it and try again (%d retries left).", f.Remaining)
	}
	return b.String()
}

// describeFailure is a Failure's Message.
func describeFailure(f Failure) string {
	var b strings.Builder
	if f.Task != "" {
		fmt.Fprintf(&b, "Task: %s\n\n", f.Task)
	}
	if f.Code != "" {
		fmt.Fprintf(&b, "This code failed:\n%s\n\n", f.Code)
	} else if len(f.Solution) > 0 {
		fmt.Fprintf(&b, "This solution failed:\n%s\n\n", flow.TextOf(f.Solution))
	}
	fmt.Fprintf(&b, "Error: %s\nAttempt %d; %d retries left. Write a short correction request for the author: what went wrong and what to change.", f.Error, f.Attempt, f.Remaining)
	return b.String()
}

// Correct runs the error handler on f as a nested run of r and returns
// its correction text.
func Correct(ctx context.Context, r *agent.Run, handler agent.Agent, f Failure) (string, error) {
	f.Message = describeFailure(f)
	in, err := json.Marshal(f)
	if err != nil {
		return "", err
	}
	out, err := r.Call(ctx, handler, in)
	if err != nil {
		return "", err
	}
	text := strings.TrimSpace(flow.TextOf(out))
	if text == "" {
		text = CorrectionRequest(f)
	}
	return text, nil
}
