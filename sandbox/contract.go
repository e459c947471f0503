package sandbox

import (
	"github.com/loomwork/loom/sandbox/internal/jsrt"
)

// The contract's types are declared in the runtime package, which both
// executors build on; these names are the public ones.

// Executor runs JavaScript. Implementations are safe for concurrent use.
// Run runs code as a plain script and returns the value of its final
// expression; on failure it returns an [*Error] and, when the run started,
// a [Result] holding the console output and duration so far. Close
// releases the executor's resources; runs after Close fail with
// [ErrClosed].
type Executor = jsrt.Executor

// Result is a successful run's outcome: the JSON form of the final value,
// whether it was undefined, the console lines and the run's wall time.
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
// [DefaultLimits]); a negative field is invalid.
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

// The kinds of failure a run can end with; [Kind]'s declaration documents
// each.
const (
	KindSyntax           = jsrt.KindSyntax
	KindException        = jsrt.KindException
	KindThrownValue      = jsrt.KindThrownValue
	KindTimeout          = jsrt.KindTimeout
	KindMemory           = jsrt.KindMemory
	KindStackOverflow    = jsrt.KindStackOverflow
	KindOutputTooLarge   = jsrt.KindOutputTooLarge
	KindCodeTooLarge     = jsrt.KindCodeTooLarge
	KindNestingTooDeep   = jsrt.KindNestingTooDeep
	KindUnsettledPromise = jsrt.KindUnsettledPromise
	KindCyclicValue      = jsrt.KindCyclicValue
	KindUnreadableValue  = jsrt.KindUnreadableValue
	KindWorkerCrashed    = jsrt.KindWorkerCrashed
	KindCanceled         = jsrt.KindCanceled
	KindInternal         = jsrt.KindInternal
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
type Error = jsrt.Error

// KindOf returns the Kind of the *Error in err's chain, or "" when there is
// none.
func KindOf(err error) Kind { return jsrt.KindOf(err) }

// Check admits and compiles code under lim without running it, and
// returns the *[Error] a run of it would fail with before it starts (a
// syntax error, code too large or nested too deep, a construct the
// sandbox refuses), or nil. Callers that hold code from a file check it
// when they load the file rather than at its first run.
func Check(code string, lim Limits) error { return jsrt.Check(code, lim) }
