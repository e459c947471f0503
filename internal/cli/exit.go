package cli

import (
	"errors"
	"slices"

	"github.com/loomwork/loom/agent"
	"github.com/loomwork/loom/codeexec"
	"github.com/loomwork/loom/compose"
	"github.com/loomwork/loom/model"
)

// Verdict follows a run's events to decide its exit status by ExitTable:
// whether the answer was cut, and, for programs that run code, whether any
// snippet produced a value and how the last one failed. The example
// programs and loom's commands that run agents decide it the same way.
// Its zero value judges a run that runs no code.
type Verdict struct {
	tool      string   // the sandbox tool's name; "" when the program runs no code
	reviewers []string // the reviewer agents' names, if any
	computed  bool     // a snippet ran to a value
	failure   int      // the exit status of the last failed or refused snippet
	finish    model.FinishReason
}

// NewVerdict returns the verdict of a run whose snippets run through the
// sandbox tool named tool and are read first by the reviewers named.
func NewVerdict(tool string, reviewers ...string) Verdict {
	return Verdict{tool: tool, reviewers: reviewers}
}

// Event takes in one of the run's events.
func (v *Verdict) Event(ev agent.Event) {
	if ev.Kind != agent.EventRunEnd {
		return
	}
	if ev.FinishReason != "" && v.finish != model.FinishLength {
		v.finish = ev.FinishReason
	}
	switch {
	case v.tool == "":
	case ev.Agent == v.tool && ev.Err == nil:
		v.computed = true
	case ev.Agent == v.tool:
		v.failure = v.snippetFailure(ev.Err)
	case ev.Err != nil && slices.Contains(v.reviewers, ev.Agent):
		v.failure = ExitReviewerFailed
	}
}

// snippetFailure classifies the error a sandbox tool call ended with. The
// guard around the sandbox ends after what it ran (the reviewer, the
// sandbox), so an error it only passes on keeps that classification.
func (v *Verdict) snippetFailure(err error) int {
	switch {
	case errors.Is(err, compose.ErrRetriesExhausted):
		return ExitRetriesSpent
	case errors.Is(err, codeexec.ErrRejected):
		return ExitRejected
	case errors.Is(err, codeexec.ErrDenied):
		return ExitDeclined
	case v.failure != 0:
		return v.failure
	}
	return ExitSnippetFailed
}

// Status returns the exit status of the run, which ended with runErr;
// allowTruncated accepts an answer cut at the output token limit.
func (v *Verdict) Status(runErr error, allowTruncated bool) int {
	switch {
	case runErr != nil && errors.Is(runErr, compose.ErrRetriesExhausted):
		return ExitRetriesSpent
	case runErr != nil && isConfigError(runErr):
		return ExitUsage
	case runErr != nil:
		return ExitFailed
	case v.finish == model.FinishLength && !allowTruncated:
		return ExitTruncated
	case v.tool != "" && !v.computed && v.failure != 0:
		return v.failure
	}
	return ExitOK
}

// isConfigError reports whether a run failed on something the user
// configured: a key, an option the provider lacks, an agent's settings.
func isConfigError(err error) bool {
	for _, target := range []error{model.ErrMissingKey, model.ErrAuth, model.ErrUnsupported, model.ErrInvalidOption, agent.ErrInvalidConfig} {
		if errors.Is(err, target) {
			return true
		}
	}
	return false
}

// StatusMessage explains a non-zero status of a run that had no error;
// it is empty for the other statuses.
func StatusMessage(code int) string {
	switch code {
	case ExitTruncated:
		return "the answer above was cut at the model's output token limit (finish reason length) and is incomplete: ask for a shorter answer, or pass --allow-truncated to accept it"
	case ExitSnippetFailed:
		return "no computed answer: the last snippet failed in the sandbox"
	case ExitDeclined:
		return "no computed answer: the last snippet was declined"
	case ExitRejected:
		return "no computed answer: the reviewer rejected the last snippet"
	case ExitReviewerFailed:
		return "no computed answer: the reviewer failed"
	}
	return ""
}
