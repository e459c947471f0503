package compose

import (
	"errors"
	"fmt"
)

// ErrRetriesExhausted marks work that kept failing after its retry budget
// was spent; see [RetriesError].
var ErrRetriesExhausted = errors.New("retry budget exhausted")

// RetriesError reports work that still failed when its retry budget ran
// out: the failed attempts and the last failure. It wraps
// [ErrRetriesExhausted] and the last failure.
type RetriesError struct {
	Workflow string
	Attempts int   // failed attempts
	Retries  int   // the budget: retries allowed after the first failure
	Last     error // the last failure
}

// Error returns the error's message.
func (e *RetriesError) Error() string {
	return fmt.Sprintf("%s: retry budget exhausted: %d attempts failed (%d retries allowed); last failure: %v", e.Workflow, e.Attempts, e.Retries, e.Last)
}

// Unwrap returns [ErrRetriesExhausted] and the last failure.
func (e *RetriesError) Unwrap() []error { return []error{ErrRetriesExhausted, e.Last} }

// SubtaskError is the failure of one subtask of a [Coordinator]. It wraps
// the subtask's error.
type SubtaskError struct {
	Workflow string
	Index    int // from 1
	Task     string
	Err      error
}

// Error returns the error's message.
func (e *SubtaskError) Error() string {
	return fmt.Sprintf("%s: subtask %d (%s): %v", e.Workflow, e.Index, short(e.Task, 60), e.Err)
}

// Unwrap returns the subtask's error.
func (e *SubtaskError) Unwrap() error { return e.Err }

func short(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n]) + "…"
}
