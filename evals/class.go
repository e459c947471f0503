package evals

import (
	"errors"
	"fmt"

	"github.com/loomwork/loom/sandbox"
)

// Class is a sample's outcome: passed, or the class of its failure. The
// string forms are stable (JSON reports and metric attributes use them).
type Class string

// The outcomes of a sample.
const (
	// Passed: the code passed every test (for a task: the answer checked).
	Passed Class = "passed"
	// Syntax: the code does not parse.
	Syntax Class = "syntax"
	// Exception: the code threw (a TypeError, a ReferenceError, a thrown
	// value, a rejected or unsettled Promise).
	Exception Class = "exception"
	// Assertion: a test's assertion failed.
	Assertion Class = "assertion"
	// Timeout: the run passed the sandbox's time limit.
	Timeout Class = "timeout"
	// SandboxLimit: the run passed another sandbox limit (memory, stack,
	// output or code size, nesting).
	SandboxLimit Class = "sandbox_limit"
	// NoCode: the solver's answer holds no code (no fenced block and no
	// code field).
	NoCode Class = "no_code"
	// WrongAnswer: a task's answer did not check.
	WrongAnswer Class = "wrong_answer"
	// SolverError: the solver's run failed (a provider error, a limit,
	// output it could not produce). These count in the error rate.
	SolverError Class = "solver_error"
	// HarnessError: the sandbox itself failed (an internal error, a closed
	// executor). These count in the error rate.
	HarnessError Class = "harness_error"
)

// Classes lists every class, in the order reports show them.
func Classes() []Class {
	return []Class{Passed, Assertion, Exception, Syntax, Timeout, SandboxLimit, NoCode, WrongAnswer, SolverError, HarnessError}
}

// classify maps a sandbox run's error to a class.
func classify(err error) Class {
	if err == nil {
		return Passed
	}
	var se *sandbox.Error
	if !errors.As(err, &se) {
		return HarnessError
	}
	switch se.Kind {
	case sandbox.KindSyntax:
		return Syntax
	case sandbox.KindException:
		if se.Name == "AssertionError" {
			return Assertion
		}
		return Exception
	case sandbox.KindThrownValue, sandbox.KindUnsettledPromise:
		return Exception
	case sandbox.KindTimeout:
		return Timeout
	case sandbox.KindMemory, sandbox.KindStackOverflow, sandbox.KindOutputTooLarge, sandbox.KindCodeTooLarge,
		sandbox.KindNestingTooDeep, sandbox.KindCyclicValue, sandbox.KindWorkerCrashed, sandbox.KindUnreadableValue:
		return SandboxLimit
	}
	return HarnessError
}

// UnmarshalText accepts only the known classes, so a report from another
// tool is refused rather than misread.
func (c *Class) UnmarshalText(b []byte) error {
	for _, k := range Classes() {
		if string(k) == string(b) {
			*c = k
			return nil
		}
	}
	return fmt.Errorf("evals: unknown sample class %q", b)
}
