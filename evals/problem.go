package evals

import (
	_ "embed"
	"strings"
)

// Problem is one programming problem in JavaScript: the prompt a solver
// completes and the tests its function must pass.
type Problem struct {
	// ID is the problem's id, as HumanEval/0.
	ID string `json:"id"`
	// Prompt is what the solver is shown: helper functions, the docstring
	// as a comment and the function's opening line.
	Prompt string `json:"prompt"`
	// EntryPoint is the JavaScript name of the function to write
	// (camelCase); PythonName is the original name, also accepted.
	EntryPoint string `json:"entry_point"`
	PythonName string `json:"python_name,omitempty"`
	// Prelude is JavaScript the tests and the solution may call (the
	// helpers a HumanEval prompt defines, as encode_cyclic).
	Prelude string `json:"prelude,omitempty"`
	// Tests are JavaScript statements that call `candidate` and use the
	// assert shim; a failing test throws an AssertionError.
	Tests string `json:"tests"`
	// Override says why the tests were written by hand instead of
	// translated; empty when they were translated.
	Override string `json:"override,omitempty"`
}

// The shim, in two parts: the assert module every program gets, and the
// Python helpers (__py) only programs whose tests call them get, since
// compiling them is most of a check's cost.
var (
	//go:embed shim_assert.js
	shimAssert string
	//go:embed shim_py.js
	shimPy string
)

// Shim returns the JavaScript that defines `assert` (ok, strictEqual,
// deepStrictEqual, notStrictEqual, notDeepStrictEqual, throws, and the
// AssertionError they throw) and the Python helpers translated tests call.
func Shim() string { return shimAssert + shimPy }

// Program returns the script that checks code against p: the shim (its
// Python helpers when the tests use them), the prelude, the code in a scope of its own (so it cannot redefine the
// shim), and the tests. It throws an AssertionError when a test fails and a
// ReferenceError when code defines no function by the problem's name.
func (p Problem) Program(code string) string {
	var b strings.Builder
	b.Grow(len(shimAssert) + len(shimPy) + len(p.Prelude) + len(code) + len(p.Tests) + 512)
	b.WriteString(shimAssert)
	if strings.Contains(p.Tests, "__py.") || strings.Contains(p.Prelude, "__py.") {
		b.WriteString(shimPy)
	}
	b.WriteString("\n")
	b.WriteString(p.Prelude)
	b.WriteString("\nvar __candidate = (function () {\n")
	b.WriteString(code)
	b.WriteString("\n;return ")
	for _, n := range p.names() {
		b.WriteString("typeof " + n + " === \"function\" ? " + n + " : ")
	}
	b.WriteString("undefined;\n})();\n(function () {\nif (typeof __candidate !== \"function\") throw new ReferenceError(")
	b.WriteString(jsString("the answer defines no function named " + p.EntryPoint))
	b.WriteString(");\nvar candidate = __candidate;\n")
	for _, n := range p.names() {
		b.WriteString("var " + n + " = candidate;\n") // tests may call the function by its name
	}
	b.WriteString(p.Tests)
	b.WriteString("\n})();\n")
	return b.String()
}

// names are the function names accepted for the solution.
func (p Problem) names() []string {
	if p.PythonName == "" || p.PythonName == p.EntryPoint {
		return []string{p.EntryPoint}
	}
	return []string{p.EntryPoint, p.PythonName}
}
