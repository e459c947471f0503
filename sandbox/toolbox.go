package sandbox

import (
	"context"
	"errors"

	"github.com/loomwork/loom/internal/jsonschema"
	"github.com/loomwork/loom/sandbox/internal/jsrt"
)

// HostFunc runs a host tool's call on the host, outside the sandbox. args
// is the JSON form of the code's argument, already checked against the
// tool's input schema; the result must be JSON. ctx ends with the run; its
// deadline, which a tool may pass on, is the run's time limit plus grace.
// A HostFunc must return soon after ctx ends.
type HostFunc = jsrt.HostFunc

// HostTool is a host function offered to sandboxed code as an async
// function: tools.<JSName>(args) returns a Promise of the call's result.
type HostTool = jsrt.HostTool

// CallLimits bound the host tool calls of one run. A zero field takes its
// default; a negative field is invalid.
type CallLimits = jsrt.CallLimits

// Default call limits.
const (
	// DefaultMaxCalls is CallLimits.MaxCalls when zero.
	DefaultMaxCalls = jsrt.DefaultMaxCalls
	// DefaultMaxInFlight is CallLimits.MaxInFlight when zero.
	DefaultMaxInFlight = jsrt.DefaultMaxInFlight
)

// Toolbox is a checked set of host tools with their call limits, ready to
// be offered to many runs (see [ToolRunner]). It is immutable and safe for
// concurrent use.
type Toolbox = jsrt.Toolbox

// NewToolbox checks tools and limits: every tool needs a name, a Call and,
// when it has one, an input schema that compiles; two tools may not have
// the same [JSName].
func NewToolbox(tools []HostTool, limits CallLimits) (*Toolbox, error) {
	return jsrt.NewToolbox(tools, limits, compileArgCheck)
}

// compileArgCheck compiles a host tool's input schema into the check of
// its arguments: "" or what is wrong, "at /pointer: rule; ...".
func compileArgCheck(schema []byte) (jsrt.ArgCheck, error) {
	s, err := jsonschema.Compile(schema)
	if err != nil {
		return nil, err
	}
	return func(args []byte) string {
		err := s.Validate(args)
		switch {
		case err == nil:
			return ""
		case errors.Is(err, jsonschema.ErrNotJSON):
			return "the argument is not JSON data"
		default:
			return err.Error()
		}
	}, nil
}

// ToolRunner is an [Executor] that can offer host tools to the code it
// runs. [InProcess] and [Isolated] are ToolRunners: in a worker process,
// each call goes to the parent over the worker's pipe and runs there.
type ToolRunner = jsrt.ToolRunner

// JSName is the name a host tool has in the sandbox: name with every
// character that may not appear in a JavaScript identifier replaced by _,
// and a leading _ when it starts with a digit (get-sum → get_sum).
func JSName(name string) string { return jsrt.JSName(name) }

// CallErrorKind classifies a failed host tool call.
type CallErrorKind = jsrt.CallErrorKind

// The ways a host tool call fails. Each one rejects the call's Promise, so
// the code can catch it.
const (
	// CallInvalidArguments: the argument does not meet the tool's input
	// schema, or is not JSON data (a TypeError in the code).
	CallInvalidArguments = jsrt.CallInvalidArguments
	// CallFailed: the tool ran and failed (an Error named ToolError).
	CallFailed = jsrt.CallFailed
	// CallLimit: the call passed a limit (a RangeError).
	CallLimit = jsrt.CallLimit
	// CallRefused: the run had ended, or ended during the call.
	CallRefused = jsrt.CallRefused
)

// Sentinels for errors.Is on a [*CallError], one per [CallErrorKind].
var (
	// ErrToolArguments matches CallInvalidArguments.
	ErrToolArguments = jsrt.ErrToolArguments
	// ErrToolFailed matches CallFailed.
	ErrToolFailed = jsrt.ErrToolFailed
	// ErrToolLimit matches CallLimit.
	ErrToolLimit = jsrt.ErrToolLimit
	// ErrRunEnded matches CallRefused.
	ErrRunEnded = jsrt.ErrRunEnded
)

// CallError is how a host tool call failed, as the code sees it: the
// Promise rejects with an error whose message is Message.
type CallError = jsrt.CallError

// CallIndex is the number of the host tool call whose HostFunc received
// ctx, among the calls of its run that reached the host, from 0 in the
// order the code made them; -1 outside a call.
func CallIndex(ctx context.Context) int { return jsrt.CallIndex(ctx) }
