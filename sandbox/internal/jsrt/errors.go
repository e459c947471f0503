package jsrt

import (
	"encoding/json"
	"errors"
)

// Kind classifies a sandbox failure. Its string form is stable and suitable
// as a metric or trace attribute.
type Kind string

// The kinds of failure a run can end with.
const (
	// KindSyntax: the code does not parse. Error.Line and Error.Column say
	// where.
	KindSyntax Kind = "syntax"
	// KindException: the code threw an Error object (TypeError,
	// ReferenceError, a custom Error …), or its final Promise rejected with
	// one. Error.Name is the error's name and Error.Stack its JS stack.
	KindException Kind = "exception"
	// KindThrownValue: the code threw something that is not an Error
	// (throw null, throw 1, throw {…}), or its final Promise rejected with
	// one. Error.Value is the value's JSON form.
	KindThrownValue Kind = "thrown_value"
	// KindTimeout: the run passed its time limit, or the caller's deadline.
	KindTimeout Kind = "timeout"
	// KindMemory: the run passed its memory limit, or the code's regexp
	// literals would compile to more than loom allows (Limit is then in
	// regexp instructions).
	KindMemory Kind = "memory"
	// KindStackOverflow: the code recursed deeper than the call stack limit.
	KindStackOverflow Kind = "stack_overflow"
	// KindOutputTooLarge: the final value's JSON form is larger than the
	// result limit, or nested deeper than the result depth limit.
	KindOutputTooLarge Kind = "output_too_large"
	// KindCodeTooLarge: the source is larger than the source limit.
	KindCodeTooLarge Kind = "code_too_large"
	// KindNestingTooDeep: the source nests brackets deeper than the nesting
	// limit, or chains too many operators in one expression.
	KindNestingTooDeep Kind = "nesting_too_deep"
	// KindUnsettledPromise: the final value is a Promise that never settled.
	KindUnsettledPromise Kind = "unsettled_promise"
	// KindCyclicValue: the final value refers to itself.
	KindCyclicValue Kind = "cyclic_value"
	// KindUnreadableValue: the host could not read the final value, or a
	// thrown one, without running the code's own functions (the code
	// defined a property named like a descriptor field on
	// Object.prototype). The sandbox refuses rather than report a
	// falsified value.
	KindUnreadableValue Kind = "unreadable_value"
	// KindWorkerCrashed: the isolated executor's worker process died during
	// the run. The error's cause, when known, is a memory or stack error.
	KindWorkerCrashed Kind = "worker_crashed"
	// KindCanceled: the caller's context was canceled.
	KindCanceled Kind = "canceled"
	// KindInternal: a fault in the sandbox itself, not in the code.
	KindInternal Kind = "internal"
)

// Sentinels, one per [Kind], for errors.Is. A [*Error] matches the sentinel
// of its Kind.
var (
	ErrSyntax           = errors.New("sandbox: syntax error")
	ErrException        = errors.New("sandbox: uncaught exception")
	ErrThrownValue      = errors.New("sandbox: thrown non-Error value")
	ErrTimeout          = errors.New("sandbox: time limit exceeded")
	ErrMemoryLimit      = errors.New("sandbox: memory limit exceeded")
	ErrStackOverflow    = errors.New("sandbox: call stack limit exceeded")
	ErrOutputTooLarge   = errors.New("sandbox: output too large")
	ErrCodeTooLarge     = errors.New("sandbox: code too large")
	ErrNestingTooDeep   = errors.New("sandbox: code nested too deep")
	ErrUnsettledPromise = errors.New("sandbox: promise never settled")
	ErrCyclicValue      = errors.New("sandbox: cyclic value")
	ErrUnreadableValue  = errors.New("sandbox: value unreadable")
	ErrWorkerCrashed    = errors.New("sandbox: worker crashed")
	ErrCanceled         = errors.New("sandbox: run canceled")
	ErrInternal         = errors.New("sandbox: internal error")
	// ErrClosed is returned by Run after the executor was closed.
	ErrClosed = errors.New("sandbox: executor closed")
)

var sentinels = map[Kind]error{
	KindSyntax:           ErrSyntax,
	KindException:        ErrException,
	KindThrownValue:      ErrThrownValue,
	KindTimeout:          ErrTimeout,
	KindMemory:           ErrMemoryLimit,
	KindStackOverflow:    ErrStackOverflow,
	KindOutputTooLarge:   ErrOutputTooLarge,
	KindCodeTooLarge:     ErrCodeTooLarge,
	KindNestingTooDeep:   ErrNestingTooDeep,
	KindUnsettledPromise: ErrUnsettledPromise,
	KindCyclicValue:      ErrCyclicValue,
	KindUnreadableValue:  ErrUnreadableValue,
	KindWorkerCrashed:    ErrWorkerCrashed,
	KindCanceled:         ErrCanceled,
	KindInternal:         ErrInternal,
}

// Error is every failure a run can end with. Its message is written for the
// model that wrote the code: it says what went wrong and how to change the
// code. Match a kind with errors.Is (errors.Is(err, sandbox.ErrTimeout)) and
// read the details with errors.As.
//
// The fields other than Kind and Message are set where they apply.
type Error struct {
	// Kind classifies the failure.
	Kind Kind `json:"kind"`
	// Message is the full, model-readable message Error returns.
	Message string `json:"message"`
	// Line and Column locate a syntax error, or the top frame of an
	// exception, in the submitted code (1-based).
	Line   int `json:"line,omitempty"`
	Column int `json:"column,omitempty"`
	// Name is the JS error's name for KindException (TypeError …).
	Name string `json:"name,omitempty"`
	// Stack is the JS stack for KindException, KindThrownValue and
	// KindStackOverflow, one "at …" frame per line.
	Stack string `json:"stack,omitempty"`
	// Value is the thrown value's JSON form for KindThrownValue.
	Value json.RawMessage `json:"value,omitempty"`
	// Limit is the limit that was exceeded, in its unit (bytes, levels,
	// frames, milliseconds, regexp instructions), for the limit kinds.
	Limit int64 `json:"limit,omitempty"`
	// Rejected is true when the failure is the rejection of the Promise the
	// code returned, rather than a synchronous throw.
	Rejected bool `json:"rejected,omitempty"`

	cause error
}

// Error returns the model-readable message.
func (e *Error) Error() string { return e.Message }

// Is reports whether target is the sentinel of e's Kind.
func (e *Error) Is(target error) bool {
	s, ok := sentinels[e.Kind]
	return ok && s == target
}

// Unwrap returns the cause: context.DeadlineExceeded or context.Canceled
// when the caller's context ended the run, or the classified cause of a
// worker crash (a memory or stack *Error).
func (e *Error) Unwrap() error { return e.cause }

// KindOf returns the Kind of the *Error in err's chain, or "" when there is
// none.
func KindOf(err error) Kind {
	var e *Error
	if errors.As(err, &e) {
		return e.Kind
	}
	return ""
}

// SetCause sets e's cause, the error Unwrap returns.
func SetCause(e *Error, cause error) { e.cause = cause }
