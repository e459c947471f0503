package jsrt

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
)

// HostFunc runs a host tool's call on the host, outside the sandbox. args
// is the JSON form of the code's argument, already checked against the
// tool's input schema; the result must be JSON. ctx ends with the run:
// when it is over (finished, failed, stopped at its time limit or by its
// caller) or given up; its deadline, which a tool may pass on, is the
// run's time limit plus grace. A HostFunc must return soon after ctx
// ends: the run waits for its calls in flight (in process until they end,
// which holds the run's slot; an isolated run for at most the grace).
type HostFunc func(ctx context.Context, args json.RawMessage) (json.RawMessage, error)

// HostTool is a host function offered to sandboxed code as an async
// function: tools.<JSName>(args) returns a Promise of the call's result.
type HostTool struct {
	// Name is the tool's name; the code calls it as tools[JSName(Name)].
	Name string
	// Description says what it does; it becomes the doc comment of its
	// signature.
	Description string
	// InputSchema, when set, is the JSON schema the argument must meet:
	// a call whose argument does not is rejected with a TypeError the code
	// can catch, and Call is not called.
	InputSchema json.RawMessage
	// OutputSchema, when set, describes the result, for its signature.
	OutputSchema json.RawMessage
	// Call runs a call.
	Call HostFunc
}

// CallLimits bound the host tool calls of one run. A zero field takes its
// default; a negative field is invalid.
type CallLimits struct {
	// MaxCalls is the most tool calls one run may start (default 32);
	// later calls are rejected with a RangeError.
	MaxCalls int `json:"maxCalls,omitempty"`
	// MaxInFlight is the most calls running on the host at once (default
	// 8, at most 64); later calls wait, in order, for a running one to end.
	MaxInFlight int `json:"maxInFlight,omitempty"`
}

// Default call limits.
const (
	// DefaultMaxCalls is CallLimits.MaxCalls when zero.
	DefaultMaxCalls = 32
	// DefaultMaxInFlight is CallLimits.MaxInFlight when zero.
	DefaultMaxInFlight = 8
	MaxInFlightCeiling = 64
)

// withDefaults fills zero fields and rejects negative ones.
func (l CallLimits) withDefaults() (CallLimits, error) {
	switch {
	case l.MaxCalls < 0:
		return l, fmt.Errorf("sandbox: CallLimits.MaxCalls is %d: it must not be negative (zero means the default, %d)", l.MaxCalls, DefaultMaxCalls)
	case l.MaxCalls == 0:
		l.MaxCalls = DefaultMaxCalls
	}
	switch {
	case l.MaxInFlight < 0 || l.MaxInFlight > MaxInFlightCeiling:
		return l, fmt.Errorf("sandbox: CallLimits.MaxInFlight is %d: it must be between 1 and %d (zero means the default, %d)", l.MaxInFlight, MaxInFlightCeiling, DefaultMaxInFlight)
	case l.MaxInFlight == 0:
		l.MaxInFlight = DefaultMaxInFlight
	}
	return l, nil
}

// Toolbox is a checked set of host tools with their call limits, ready to
// be offered to many runs (see [ToolRunner]). It is immutable and safe for
// concurrent use.
type Toolbox struct {
	tools  []boxTool
	byJS   map[string]*boxTool
	limits CallLimits
	// skip, when set, hears of each call refused before its tool ran
	// (codeTool keeps its calls in order with it).
	skip func(ctx context.Context, index int)
}

type boxTool struct {
	HostTool
	js    string
	check ArgCheck
}

// NewToolbox checks tools and limits: every tool needs a name, a Call and,
// when it has one, an input schema that compile accepts (its arguments
// are then checked with what compile returns); two tools may not have the
// same [JSName].
func NewToolbox(tools []HostTool, limits CallLimits, compile SchemaCompiler) (*Toolbox, error) {
	lim, err := limits.withDefaults()
	if err != nil {
		return nil, err
	}
	b := &Toolbox{tools: make([]boxTool, len(tools)), byJS: make(map[string]*boxTool, len(tools)), limits: lim}
	for i, t := range tools {
		if strings.TrimSpace(t.Name) == "" {
			return nil, fmt.Errorf("sandbox: host tool %d has no name", i)
		}
		if t.Call == nil {
			return nil, fmt.Errorf("sandbox: host tool %q has no Call function", t.Name)
		}
		js := JSName(t.Name)
		if prev, dup := b.byJS[js]; dup {
			return nil, fmt.Errorf("sandbox: host tools %q and %q are both offered as tools.%s: rename or filter one", prev.Name, t.Name, js)
		}
		bt := boxTool{HostTool: t, js: js}
		if len(t.InputSchema) > 0 {
			if compile == nil {
				return nil, fmt.Errorf("sandbox: host tool %q has an input schema and the toolbox no schema compiler", t.Name)
			}
			if bt.check, err = compile(t.InputSchema); err != nil {
				return nil, fmt.Errorf("sandbox: host tool %q: input schema: %w", t.Name, err)
			}
		}
		b.tools[i] = bt
		b.byJS[js] = &b.tools[i]
	}
	return b, nil
}

// Limits returns the call limits with their defaults filled in.
func (b *Toolbox) Limits() CallLimits { return b.limits }

// Tools returns the tools, in the order given.
func (b *Toolbox) Tools() []HostTool {
	out := make([]HostTool, len(b.tools))
	for i := range b.tools {
		out[i] = b.tools[i].HostTool
	}
	return out
}

// jsNames are the names the code calls, sorted.
func (b *Toolbox) jsNames() []string {
	names := make([]string, 0, len(b.byJS))
	for n := range b.byJS {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// ToolRunner is an [Executor] that can offer host tools to the code it runs.
// [InProcess] and [github.com/loomwork/loom/sandbox.Isolated] are ToolRunners: in
// a worker process, each call goes to the parent over the worker's pipe
// and runs there.
type ToolRunner interface {
	Executor
	// RunWithTools runs code as Run does, with the global object tools
	// holding an async function per tool of box. The run's time limit
	// covers the calls: when the run ends, its calls in flight are
	// cancelled and awaited (see [HostFunc]).
	RunWithTools(ctx context.Context, code string, box *Toolbox) (*Result, error)
}

// JSName is the name a host tool has in the sandbox: name with every
// character that may not appear in a JavaScript identifier replaced by _,
// and a leading _ when it starts with a digit (get-sum → get_sum).
func JSName(name string) string {
	var b strings.Builder
	for i, r := range name {
		switch {
		case r == '_' || r == '$' || (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z'):
			b.WriteRune(r)
		case r >= '0' && r <= '9':
			if i == 0 {
				b.WriteByte('_')
			}
			b.WriteRune(r)
		default:
			b.WriteByte('_')
		}
	}
	return b.String()
}

// CallErrorKind classifies a failed host tool call.
type CallErrorKind string

// The ways a host tool call fails. Each one rejects the call's Promise, so
// the code can catch it.
const (
	// CallInvalidArguments: the argument does not meet the tool's input
	// schema, or is not JSON data (a TypeError in the code).
	CallInvalidArguments CallErrorKind = "invalid_arguments"
	// CallFailed: the tool ran and failed (an Error named ToolError).
	CallFailed CallErrorKind = "failed"
	// CallLimit: the call passed a limit: the calls per run, the bytes of
	// an argument or result, or of all of a run's (a RangeError).
	CallLimit CallErrorKind = "limit"
	// CallRefused: the run had ended, or ended during the call (an Error
	// named ToolError).
	CallRefused CallErrorKind = "refused"
)

// Sentinels for errors.Is on a [*CallError], one per [CallErrorKind].
var (
	// ErrToolArguments matches CallInvalidArguments.
	ErrToolArguments = errors.New("sandbox: tool call arguments invalid")
	// ErrToolFailed matches CallFailed.
	ErrToolFailed = errors.New("sandbox: tool call failed")
	// ErrToolLimit matches CallLimit.
	ErrToolLimit = errors.New("sandbox: tool call limit exceeded")
	// ErrRunEnded matches CallRefused.
	ErrRunEnded = errors.New("sandbox: tool call refused: the run has ended")
)

// CallError is how a host tool call failed, as the code sees it: the
// Promise rejects with an error whose message is Message.
type CallError struct {
	// Tool is the tool's name in the sandbox (its JSName).
	Tool string `json:"tool"`
	// Kind says how the call failed; the code reads it as the error's
	// kind property.
	Kind CallErrorKind `json:"kind"`
	// Message is the error's message: "tools.<name>: " and what happened.
	Message string `json:"message"`
}

// Error returns the message.
func (e *CallError) Error() string { return e.Message }

// Is matches the sentinel of e's kind.
func (e *CallError) Is(target error) bool {
	switch e.Kind {
	case CallInvalidArguments:
		return target == ErrToolArguments
	case CallFailed:
		return target == ErrToolFailed
	case CallLimit:
		return target == ErrToolLimit
	case CallRefused:
		return target == ErrRunEnded
	}
	return false
}

// jsErrorName is the JS error the call's Promise rejects with.
func (e *CallError) jsErrorName() string {
	switch e.Kind {
	case CallInvalidArguments:
		return "TypeError"
	case CallLimit:
		return "RangeError"
	default:
		return "Error"
	}
}

func CallErr(tool string, kind CallErrorKind, format string, args ...any) *CallError {
	return &CallError{Tool: tool, Kind: kind, Message: "tools." + tool + ": " + fmt.Sprintf(format, args...)}
}

// SetSkip makes skip hear of each call of b's runs refused before its tool
// ran, so that a caller keeping the calls in order can move on.
func SetSkip(b *Toolbox, skip func(ctx context.Context, index int)) { b.skip = skip }

// CallLimitsWithDefaults is l with its zero fields filled, or an error
// naming a field out of range.
func CallLimitsWithDefaults(l CallLimits) (CallLimits, error) { return l.withDefaults() }

// ToolNames are the JS names of b's tools, sorted: what a worker offers
// the code.
func ToolNames(b *Toolbox) []string { return b.jsNames() }
