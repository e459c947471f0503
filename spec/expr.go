package spec

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"strings"

	"github.com/loomwork/loom/graph"
	"github.com/loomwork/loom/sandbox"
)

// branchExpr picks the next nodes with a JavaScript expression over the
// state, run in the sandbox.
func branchExpr(expr string, exec sandbox.Executor) func(ctx context.Context, s gstate) ([]string, error) {
	return func(ctx context.Context, s gstate) ([]string, error) {
		v, err := eval(ctx, exec, expr, s)
		if err != nil {
			return nil, err
		}
		return namesOf(v)
	}
}

// branchFunc adapts a registered Go function.
func branchFunc(fn BranchFunc) func(ctx context.Context, s gstate) ([]string, error) {
	return func(ctx context.Context, s gstate) ([]string, error) {
		names, err := fn(ctx, maps.Clone(s.State))
		if err != nil {
			return nil, err
		}
		return endsOf(names), nil
	}
}

// namesOf reads a branch's value: a node name or a list of them.
func namesOf(v json.RawMessage) ([]string, error) {
	var one string
	if json.Unmarshal(v, &one) == nil {
		return endsOf([]string{one}), nil
	}
	var many []string
	if json.Unmarshal(v, &many) == nil {
		return endsOf(many), nil
	}
	return nil, fmt.Errorf("the expression returned %.100s: want a node's name, a list of names, or \"end\"", v)
}

// endsOf maps the file's end to the graph package's.
func endsOf(names []string) []string {
	out := make([]string, len(names))
	for i, n := range names {
		if n == GraphEnd {
			n = graph.END
		}
		out[i] = n
	}
	return out
}

// exprCode is the program that evaluates expr over state, the JSON of the
// graph's state.
func exprCode(state []byte, expr string) string {
	return "const state = " + string(state) + ";\n(\n" + expr + "\n)"
}

// exprLines is how many lines exprCode puts before the expression.
const exprLines = 2

// checkExpr compiles expr as a run would, without running it, and returns
// why it cannot run: the sandbox's message with its line counted within
// the expression.
func checkExpr(expr string) error {
	err := sandbox.Check(exprCode([]byte("{}"), expr), sandbox.Limits{})
	var se *sandbox.Error
	if err == nil || !errors.As(err, &se) {
		return err
	}
	msg, _, _ := strings.Cut(se.Message, "\n")
	if se.Kind == sandbox.KindSyntax && se.Line > exprLines {
		if _, rest, ok := strings.Cut(msg, ": "); ok {
			line := se.Line - exprLines
			if line > strings.Count(expr, "\n")+1 {
				// Found at the wrapper's closing parenthesis: the
				// expression stopped short.
				msg = "SyntaxError at the end of the expression (is it cut short?): " + rest
			} else {
				msg = fmt.Sprintf("SyntaxError at line %d, column %d of the expression: %s", line, se.Column, rest)
			}
		}
	}
	return errors.New(msg)
}

// eval runs a JavaScript expression in the sandbox with the state bound to
// the constant state, and returns its value as JSON.
func eval(ctx context.Context, exec sandbox.Executor, expr string, s gstate) (json.RawMessage, error) {
	st, err := json.Marshal(s.State)
	if err != nil {
		return nil, err
	}
	if s.State == nil {
		st = []byte(`{}`)
	}
	res, err := exec.Run(ctx, exprCode(st, expr))
	if err != nil {
		return nil, fmt.Errorf("expression %q: %w", expr, err)
	}
	if len(bytes.TrimSpace(res.Value)) == 0 {
		return json.RawMessage("null"), nil
	}
	return res.Value, nil
}
