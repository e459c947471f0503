package evals

import (
	"errors"
	"fmt"
	"strings"
	"unicode"
)

// ErrUntranslatable is wrapped by the errors of a HumanEval problem whose
// Python test or prompt the translator cannot turn into JavaScript, and
// which has no override.
var ErrUntranslatable = errors.New("evals: untranslatable problem")

// TranslateError says which problem, and which line of its test, the
// translator could not handle.
type TranslateError struct {
	TaskID string
	Line   string // the Python statement, when the failure is in the test
	Err    error
}

// Error names the problem, the statement and the reason.
func (e *TranslateError) Error() string {
	if e.Line != "" {
		return fmt.Sprintf("evals: %s: cannot translate %q: %v (add an override in overrides.go)", e.TaskID, e.Line, e.Err)
	}
	return fmt.Sprintf("evals: %s: %v (add an override in overrides.go)", e.TaskID, e.Err)
}

// Unwrap returns the cause.
func (e *TranslateError) Unwrap() []error { return []error{ErrUntranslatable, e.Err} }

// translateTest turns the Python `check(candidate)` function of a HumanEval
// test into JavaScript statements that call `candidate` and use the assert
// shim.
func translateTest(test string) (string, error) {
	lines := logicalLines(test)
	var out []string
	inCheck := false
	for _, l := range lines {
		indented := l != "" && (l[0] == ' ' || l[0] == '\t')
		s := strings.TrimSpace(l)
		if s == "" || strings.HasPrefix(s, "#") {
			continue
		}
		if !indented {
			inCheck = false
			switch {
			case strings.HasPrefix(s, "def check(candidate)"):
				inCheck = true
			case strings.HasPrefix(s, "METADATA") || strings.HasPrefix(s, "import ") || strings.HasPrefix(s, "from "):
			default:
				return "", &TranslateError{Line: s, Err: fmt.Errorf("only check(candidate) is supported at the top level")}
			}
			continue
		}
		if !inCheck {
			continue // the body of METADATA or another ignored statement
		}
		js, err := translateStatement(s)
		if err != nil {
			return "", &TranslateError{Line: s, Err: err}
		}
		if js != "" {
			out = append(out, js)
		}
	}
	if len(out) == 0 {
		return "", fmt.Errorf("%w: the test has no assertions", ErrUntranslatable)
	}
	return strings.Join(out, "\n"), nil
}

// translateStatement translates one statement of check's body.
func translateStatement(s string) (string, error) {
	switch {
	case s == "pass" || strings.HasPrefix(s, "import ") || strings.HasPrefix(s, "from "):
		return "", nil
	case s == "print" || strings.HasPrefix(s, "print(") || strings.HasPrefix(s, "print "):
		return "", nil
	case strings.HasPrefix(s, "assert ") || strings.HasPrefix(s, "assert("):
		return translateAssert(strings.TrimSpace(strings.TrimPrefix(s, "assert")))
	}
	if name, rhs, ok := assignment(s); ok {
		n, err := parsePy(rhs)
		if err != nil {
			return "", err
		}
		js, err := jsExpr(n)
		if err != nil {
			return "", err
		}
		return "var " + name + " = " + js + ";", nil
	}
	return "", fmt.Errorf("only assert, simple assignments, print and import are supported")
}

// assignment splits "name = expr".
func assignment(s string) (name, rhs string, ok bool) {
	i := strings.Index(s, "=")
	if i <= 0 || i+1 < len(s) && s[i+1] == '=' {
		return "", "", false
	}
	name = strings.TrimSpace(s[:i])
	for j, r := range name {
		if !(r == '_' || unicode.IsLetter(r) || j > 0 && unicode.IsDigit(r)) {
			return "", "", false
		}
	}
	return name, strings.TrimSpace(s[i+1:]), true
}

// translateAssert translates "assert cond[, message]".
func translateAssert(src string) (string, error) {
	n, err := parsePy(src)
	if err != nil {
		return "", err
	}
	cond, msg := n, ""
	if n.kind == "tuple" && n.val == "bare" && len(n.kids) == 2 {
		cond = n.kids[0]
		if msg, err = jsExpr(n.kids[1]); err != nil {
			return "", err
		}
		if n.kids[1].kind != "str" {
			// Python evaluates the message only when the assertion
			// fails; the shim calls a function message then.
			msg = "function () { return " + msg + "; }"
		}
	}
	if msg == "" {
		line := src
		if len(line) > 160 {
			line = line[:157] + "..."
		}
		msg = jsString("assert " + line)
	}
	for cond.kind == "paren" {
		cond = cond.kids[0]
	}
	if cond.kind == "const" && cond.val == "True" {
		return "", nil // assert True, "…": a debugging marker in HumanEval
	}
	if cond.kind == "cmp" {
		a, err := jsExpr(cond.kids[0])
		if err != nil {
			return "", err
		}
		b, err := jsExpr(cond.kids[1])
		if err != nil {
			return "", err
		}
		switch {
		case cond.val == "==" && !isNone(cond.kids[1]):
			return "assert.deepStrictEqual(" + a + ", " + b + ", " + msg + ");", nil
		case cond.val == "is" && cond.kids[1].kind == "const" && !isNone(cond.kids[1]):
			return "assert.strictEqual(" + a + ", " + b + ", " + msg + ");", nil
		}
	}
	js, err := jsExpr(cond)
	if err != nil {
		return "", err
	}
	return "assert.ok(__py.truthy(" + js + "), " + msg + ");", nil
}

func isNone(n *pyNode) bool { return n.kind == "const" && n.val == "None" }

// logicalLines joins the physical lines of Python source into logical
// ones: open brackets, open triple-quoted strings and trailing backslashes
// continue a line.
func logicalLines(src string) []string {
	var out []string
	var cur strings.Builder
	depth := 0
	var quote string
	phys := strings.Split(strings.ReplaceAll(src, "\r\n", "\n"), "\n")
	for _, l := range phys {
		if cur.Len() > 0 {
			cur.WriteByte('\n')
		}
		cur.WriteString(l)
		for i := 0; i < len(l); i++ {
			c := l[i]
			if quote != "" {
				if c == '\\' {
					i++
					continue
				}
				if strings.HasPrefix(l[i:], quote) {
					i += len(quote) - 1
					quote = ""
				}
				continue
			}
			switch c {
			case '#':
				i = len(l)
			case '\'', '"':
				q := l[i : i+1]
				if strings.HasPrefix(l[i:], q+q+q) {
					q = q + q + q
				}
				quote = q
				i += len(q) - 1
			case '(', '[', '{':
				depth++
			case ')', ']', '}':
				depth--
			}
		}
		if len(quote) == 1 {
			quote = "" // an unterminated one-line string: the parser reports it
		}
		if depth > 0 || quote != "" || strings.HasSuffix(strings.TrimRight(l, " \t"), "\\") {
			continue
		}
		out = append(out, cur.String())
		cur.Reset()
		depth = 0
	}
	if cur.Len() > 0 {
		out = append(out, cur.String())
	}
	return out
}
