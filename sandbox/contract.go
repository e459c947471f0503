package sandbox

import (
	"github.com/loomwork/loom/sandbox/internal/jsrt"
)

// The contract's types are declared in sandbox/internal/jsrt, which both
// executors build on and which this package imports; these aliases are
// their public names. Their fields are summarised here.

// Executor runs JavaScript. Implementations are safe for concurrent use.
// Run runs code as a plain script and returns the value of its final
// expression; on failure it returns an [*Error] and, when the run started,
// a [Result] holding the console output and duration so far. Close
// releases the executor's resources; runs after Close fail with
// [ErrClosed].
type Executor = jsrt.Executor

// Result is a successful run's outcome. Value is the JSON form of the
// final expression's value (see the package documentation for the forms of
// BigInt, Map, Set, Date, functions and symbols), null when it is
// undefined, and then Undefined is true. Logs are the console lines, in
// order. Duration is the run's wall time, from admission to the converted
// result. A failed run returns a Result too, holding the console output and
// duration so far, with a nil Value.
type Result = jsrt.Result

// Level is a console method's level.
type Level = jsrt.Level

// Console levels. console.debug and console.trace log at LevelDebug.
const (
	LevelLog   = jsrt.LevelLog
	LevelInfo  = jsrt.LevelInfo
	LevelWarn  = jsrt.LevelWarn
	LevelError = jsrt.LevelError
	LevelDebug = jsrt.LevelDebug
)

// LogLine is one console call: its arguments formatted and joined by spaces.
type LogLine = jsrt.LogLine

// Limits bound one run. A zero field takes its default (see
// [DefaultLimits]); a negative field is invalid. The fields:
//
//   - Timeout: the run's wall time, covering the code, its Promise jobs and
//     the conversion of its result (the caller's deadline, when earlier,
//     applies instead);
//   - Grace: how long a run may take to stop after Timeout before it is
//     given up (in process) or its worker killed (isolated);
//   - Memory: the heap growth allowed to one run, in bytes (a best-effort
//     watchdog in process; also an OS limit in a worker);
//   - CallStack: the deepest JS call stack, in frames;
//   - SourceBytes and Nesting: the largest source, and its deepest bracket
//     nesting (also of text given to JSON.parse);
//   - ResultBytes and ResultDepth: the largest JSON form of the final
//     value, and its deepest nesting (also of values given to
//     JSON.stringify);
//   - LogBytes and LogLines: the console output kept.
type Limits = jsrt.Limits

// Default limits.
const (
	DefaultTimeout     = jsrt.DefaultTimeout
	DefaultGrace       = jsrt.DefaultGrace
	DefaultMemory      = jsrt.DefaultMemory
	DefaultCallStack   = jsrt.DefaultCallStack
	DefaultSourceBytes = jsrt.DefaultSourceBytes
	DefaultNesting     = jsrt.DefaultNesting
	DefaultResultBytes = jsrt.DefaultResultBytes
	DefaultResultDepth = jsrt.DefaultResultDepth
	DefaultLogBytes    = jsrt.DefaultLogBytes
	DefaultLogLines    = jsrt.DefaultLogLines
)

// DefaultLimits returns the limits a zero Limits stands for.
func DefaultLimits() Limits { return jsrt.DefaultLimits() }

// Kind classifies a sandbox failure. Its string form is stable and suitable
// as a metric or trace attribute.
type Kind = jsrt.Kind

// The kinds of failure a run can end with.
const (
	// KindSyntax: the code does not parse. Error.Line and Error.Column say
	// where.
	KindSyntax = jsrt.KindSyntax
	// KindException: the code threw an Error object (TypeError,
	// ReferenceError, a custom Error …), or its final Promise rejected with
	// one. Error.Name is the error's name and Error.Stack its JS stack.
	KindException = jsrt.KindException
	// KindThrownValue: the code threw something that is not an Error
	// (throw null, throw 1, throw {…}), or its final Promise rejected with
	// one. Error.Value is the value's JSON form.
	KindThrownValue = jsrt.KindThrownValue
	// KindTimeout: the run passed its time limit, or the caller's deadline.
	KindTimeout = jsrt.KindTimeout
	// KindMemory: the run passed its memory limit, or the code's regexp
	// literals would compile to more than loom allows (Limit is then in
	// regexp instructions).
	KindMemory = jsrt.KindMemory
	// KindStackOverflow: the code recursed deeper than the call stack limit.
	KindStackOverflow = jsrt.KindStackOverflow
	// KindOutputTooLarge: the final value's JSON form is larger than the
	// result limit, or nested deeper than the result depth limit.
	KindOutputTooLarge = jsrt.KindOutputTooLarge
	// KindCodeTooLarge: the source is larger than the source limit.
	KindCodeTooLarge = jsrt.KindCodeTooLarge
	// KindNestingTooDeep: the source nests brackets deeper than the nesting
	// limit, or chains too many operators in one expression.
	KindNestingTooDeep = jsrt.KindNestingTooDeep
	// KindUnsettledPromise: the final value is a Promise that never settled.
	KindUnsettledPromise = jsrt.KindUnsettledPromise
	// KindCyclicValue: the final value refers to itself.
	KindCyclicValue = jsrt.KindCyclicValue
	// KindUnreadableValue: the host could not read the final value, or a
	// thrown one, without running the code's own functions (the code
	// defined a property named like a descriptor field on
	// Object.prototype). The sandbox refuses rather than report a
	// falsified value.
	KindUnreadableValue = jsrt.KindUnreadableValue
	// KindWorkerCrashed: the isolated executor's worker process died during
	// the run. The error's cause, when known, is a memory or stack error.
	KindWorkerCrashed = jsrt.KindWorkerCrashed
	// KindCanceled: the caller's context was canceled.
	KindCanceled = jsrt.KindCanceled
	// KindInternal: a fault in the sandbox itself, not in the code.
	KindInternal = jsrt.KindInternal
)

// Sentinels, one per [Kind], for errors.Is. A [*Error] matches the sentinel
// of its Kind.
var (
	ErrSyntax           = jsrt.ErrSyntax
	ErrException        = jsrt.ErrException
	ErrThrownValue      = jsrt.ErrThrownValue
	ErrTimeout          = jsrt.ErrTimeout
	ErrMemoryLimit      = jsrt.ErrMemoryLimit
	ErrStackOverflow    = jsrt.ErrStackOverflow
	ErrOutputTooLarge   = jsrt.ErrOutputTooLarge
	ErrCodeTooLarge     = jsrt.ErrCodeTooLarge
	ErrNestingTooDeep   = jsrt.ErrNestingTooDeep
	ErrUnsettledPromise = jsrt.ErrUnsettledPromise
	ErrCyclicValue      = jsrt.ErrCyclicValue
	ErrUnreadableValue  = jsrt.ErrUnreadableValue
	ErrWorkerCrashed    = jsrt.ErrWorkerCrashed
	ErrCanceled         = jsrt.ErrCanceled
	ErrInternal         = jsrt.ErrInternal
	// ErrClosed is returned by Run after the executor was closed.
	ErrClosed = jsrt.ErrClosed
)

// Error is every failure a run can end with. Its message is written for the
// model that wrote the code: it says what went wrong and how to change the
// code. Match a kind with errors.Is (errors.Is(err, sandbox.ErrTimeout)) and
// read the details with errors.As.
//
// Kind classifies the failure and Message is the full, model-readable
// message Error returns. Where they apply: Line and Column locate a syntax
// error or the top frame of an exception (1-based); Name is the JS error's
// name and Stack its stack ("at …" frames); Value is a thrown non-Error's
// JSON form; Limit is the limit exceeded, in its unit; Rejected is true
// when the failure is the rejection of the Promise the code returned.
// Unwrap returns context.DeadlineExceeded or context.Canceled when the
// caller's context ended the run, or the classified cause of a worker
// crash.
type Error = jsrt.Error

// ErrorKind returns the Kind of the *Error in err's chain, or "" when there
// is none: how a run failed, such as [KindTimeout].
func ErrorKind(err error) Kind { return jsrt.KindOf(err) }

// Check admits and compiles code under lim without running it, and
// returns the *[Error] a run of it would fail with before it starts (a
// syntax error, code too large or nested too deep, a construct the
// sandbox refuses), or nil. Callers that hold code from a file check it
// when they load the file rather than at its first run.
func Check(code string, lim Limits) error { return jsrt.Check(code, lim) }
