package agent

import (
	"errors"
	"fmt"
)

// ErrTripwire marks content a guardrail refused; see [TripwireError].
var ErrTripwire = errors.New("guardrail tripwire")

// TripwireError reports content a [Guardrail] refused: which guardrail, at
// which stage, on which agent, and why. It wraps [ErrTripwire]. An AI
// agent whose input or output trips fails with it; a guarded tool whose
// arguments or result trip fails with it (the model reads it as the tool's
// error) or, when the verdict halts, with [Halt] of it.
type TripwireError struct {
	// Guardrail is the name of the guardrail that tripped.
	Guardrail string
	// Stage is where it tripped.
	Stage Stage
	// Agent is the agent guarded: the AI agent, or the tool.
	Agent string
	// Reason is the guardrail's reason.
	Reason string
}

// Error returns the error's message, as
// `guardrail "secrets" refused the output of assistant: an API key`.
func (e *TripwireError) Error() string {
	reason := e.Reason
	if reason == "" {
		reason = "no reason given"
	}
	return fmt.Sprintf("guardrail %q refused the %s of %s: %s", e.Guardrail, stageNoun(e.Stage), e.Agent, reason)
}

// Unwrap returns [ErrTripwire].
func (e *TripwireError) Unwrap() error { return ErrTripwire }

func stageNoun(s Stage) string {
	switch s {
	case StageToolInput:
		return "arguments"
	case StageToolOutput:
		return "result"
	}
	return string(s)
}
