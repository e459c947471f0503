package evals

import (
	"fmt"
	"strings"
)

// signature is a Python function's name and parameter names, with its
// docstring.
type signature struct {
	Name   string
	Params []string
	Doc    string
}

// parseSignature finds `def name(...)` in a HumanEval prompt and reads its
// parameter names (annotations, defaults and stars dropped) and docstring.
func parseSignature(prompt, name string) (signature, error) {
	head := "def " + name + "("
	i := strings.Index(prompt, head)
	if i < 0 {
		return signature{}, fmt.Errorf("the prompt has no %q", head)
	}
	rest := prompt[i+len(head):]
	depth, end := 1, -1
	for j := 0; j < len(rest) && end < 0; j++ {
		switch rest[j] {
		case '(', '[', '{':
			depth++
		case ')', ']', '}':
			depth--
			if depth == 0 {
				end = j
			}
		}
	}
	if end < 0 {
		return signature{}, fmt.Errorf("the signature of %s has no closing parenthesis", name)
	}
	sig := signature{Name: name}
	for _, p := range splitTopLevel(rest[:end]) {
		p = strings.TrimSpace(p)
		if k := strings.IndexAny(p, ":="); k >= 0 {
			p = strings.TrimSpace(p[:k])
		}
		p = strings.TrimLeft(p, "*")
		if p != "" && p != "/" {
			sig.Params = append(sig.Params, p)
		}
	}
	body := rest[end:]
	for _, q := range []string{`"""`, `'''`} {
		if a := strings.Index(body, q); a >= 0 {
			if b := strings.Index(body[a+3:], q); b >= 0 {
				sig.Doc = body[a+3 : a+3+b]
				break
			}
		}
	}
	return sig, nil
}

// splitTopLevel splits s at the commas outside brackets.
func splitTopLevel(s string) []string {
	var parts []string
	depth, start := 0, 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '(', '[', '{':
			depth++
		case ')', ']', '}':
			depth--
		case ',':
			if depth == 0 {
				parts = append(parts, s[start:i])
				start = i + 1
			}
		}
	}
	return append(parts, s[start:])
}

// JSName is the JavaScript name of a Python function: snake_case becomes
// camelCase (has_close_elements → hasCloseElements); leading underscores
// and names without one stay as they are.
func JSName(python string) string {
	lead := len(python) - len(strings.TrimLeft(python, "_"))
	parts := strings.Split(python[lead:], "_")
	var b strings.Builder
	b.WriteString(python[:lead])
	for i, p := range parts {
		if p == "" {
			continue
		}
		if i > 0 && b.Len() > lead {
			p = strings.ToUpper(p[:1]) + p[1:]
		}
		b.WriteString(p)
	}
	return b.String()
}

// jsStub writes the JavaScript prompt: the docstring as a comment and the
// function's opening line.
func jsStub(sig signature) string {
	var b strings.Builder
	b.WriteString("/**\n")
	for _, l := range docLines(sig.Doc) {
		b.WriteString(strings.TrimRight(" * "+strings.ReplaceAll(l, "*/", "* /"), " "))
		b.WriteByte('\n')
	}
	b.WriteString(" */\nfunction ")
	b.WriteString(JSName(sig.Name))
	b.WriteByte('(')
	b.WriteString(strings.Join(sig.Params, ", "))
	b.WriteString(") {\n")
	return b.String()
}

// docLines are a docstring's lines: the first trimmed, the others without
// their common indentation, blank lines at either end dropped.
func docLines(doc string) []string {
	lines := strings.Split(doc, "\n")
	lines[0] = strings.TrimSpace(lines[0])
	if len(lines) > 1 {
		rest := strings.Split(dedent(strings.Join(lines[1:], "\n")), "\n")
		lines = append(lines[:1], rest...)
	}
	for len(lines) > 0 && strings.TrimSpace(lines[0]) == "" {
		lines = lines[1:]
	}
	for len(lines) > 0 && strings.TrimSpace(lines[len(lines)-1]) == "" {
		lines = lines[:len(lines)-1]
	}
	return lines
}

// dedent removes the indentation common to every non-blank line.
func dedent(s string) string {
	lines := strings.Split(s, "\n")
	common := -1
	for _, l := range lines {
		if strings.TrimSpace(l) == "" {
			continue
		}
		n := len(l) - len(strings.TrimLeft(l, " \t"))
		if common < 0 || n < common {
			common = n
		}
	}
	for i, l := range lines {
		if len(l) >= common && common > 0 {
			lines[i] = l[common:]
		} else if strings.TrimSpace(l) == "" {
			lines[i] = ""
		}
	}
	return strings.Join(lines, "\n")
}
