package graph

import (
	"errors"
	"fmt"
	"strings"
)

// Sentinels the package's errors wrap, for [errors.Is].
var (
	// ErrInvalidGraph marks a graph that does not compile; the error is a
	// [*CompileError] listing every problem.
	ErrInvalidGraph = errors.New("graph: invalid graph")
	// ErrWriteConflict marks two writes to one field in one step, for a
	// field with no reducer; the error is a [*WriteConflictError].
	ErrWriteConflict = errors.New("graph: conflicting writes")
	// ErrStepLimit marks a run that reached its step limit; the error is a
	// [*StepLimitError].
	ErrStepLimit = errors.New("graph: step limit reached")
	// ErrNotInNode marks a call to [Once] outside a graph node.
	ErrNotInNode = errors.New("graph: called outside a graph node")
)

// CompileError lists what is wrong with a graph; it wraps [ErrInvalidGraph].
type CompileError struct {
	Graph    string
	Problems []string
}

// Error names the graph and lists every problem.
func (e *CompileError) Error() string {
	return fmt.Sprintf("graph %q: %d problem(s): %s", e.Graph, len(e.Problems), strings.Join(e.Problems, "; "))
}

// Unwrap returns [ErrInvalidGraph].
func (e *CompileError) Unwrap() error { return ErrInvalidGraph }

// WriteConflictError is two or more writes to one field in one step, where
// the field has no reducer. It wraps [ErrWriteConflict].
type WriteConflictError struct {
	Field string
	Nodes []string // the tasks that wrote it, in apply order
	Step  int
}

// Error names the field and the nodes and says how to fix it.
func (e *WriteConflictError) Error() string {
	return fmt.Sprintf("%v: step %d: field %q was written by %s in the same step; give it a reducer (Reducer(%q, graph.Replace()) keeps the last write, Append, Sum and Merge combine them) or let one node write it", ErrWriteConflict, e.Step, e.Field, strings.Join(quoteAll(e.Nodes), " and "), e.Field)
}

// Unwrap returns [ErrWriteConflict].
func (e *WriteConflictError) Unwrap() error { return ErrWriteConflict }

// StepLimitError is a run that reached its step limit. It wraps
// [ErrStepLimit]. Its counts cover the whole run since it started, across
// resumes, kills and forks, not only the process that reached the limit.
type StepLimitError struct {
	Limit int
	// Steps are the super-steps that ran since the run started.
	Steps int
	// Runs counts the runs of each node in those steps.
	Runs map[string]int
	// Looping are the nodes that ran more than once in the run, most runs
	// first (or the active nodes when none repeated).
	Looping []string
	// Next are the nodes that would have run next.
	Next []string
}

// Error states the steps that ran and the limit, the node runs of the
// looping nodes, and how to end the loop.
func (e *StepLimitError) Error() string {
	looping := make([]string, len(e.Looping))
	for i, n := range e.Looping {
		looping[i] = fmt.Sprintf("%q", n)
		if k := e.Runs[n]; k > 0 {
			looping[i] += fmt.Sprintf(" (%d runs)", k)
		}
	}
	return fmt.Sprintf("%v: %d steps ran since the run started, the limit is %d; %s would run next; looping nodes: %s; end the loop with a branch to graph.END, or raise Config.MaxSteps", ErrStepLimit, e.Steps, e.Limit, strings.Join(quoteAll(e.Next), ", "), strings.Join(looping, ", "))
}

// Unwrap returns [ErrStepLimit].
func (e *StepLimitError) Unwrap() error { return ErrStepLimit }

// NodeError is the failure of one node in a step.
type NodeError struct {
	Node string // the task: the node's name, with "#i" for a Send
	Step int
	Err  error
}

// Error names the node and the step.
func (e *NodeError) Error() string {
	return fmt.Sprintf("graph: step %d: node %q: %v", e.Step, e.Node, e.Err)
}

// Unwrap returns the node's error.
func (e *NodeError) Unwrap() error { return e.Err }

func quoteAll(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = fmt.Sprintf("%q", s)
	}
	return out
}
