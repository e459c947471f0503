package jsonschema

import (
	"fmt"
	"strings"
)

// maxListed is how many issues an [InvalidError]'s message lists.
const maxListed = 8

// String is the issue as "at /pointer: rule", the place a JSON Pointer
// ("/" for the root).
func (i Issue) String() string {
	return "at " + Pointer(i.Path) + ": " + i.Rule
}

// Pointer is path as a JSON Pointer (RFC 6901): "/" for the root, "~" and
// "/" in a name escaped.
func Pointer(path []string) string {
	if len(path) == 0 {
		return "/"
	}
	var b strings.Builder
	esc := strings.NewReplacer("~", "~0", "/", "~1")
	for _, p := range path {
		b.WriteByte('/')
		b.WriteString(esc.Replace(p))
	}
	return b.String()
}

// InvalidError is data that does not meet its schema, with every rule it
// breaks.
type InvalidError struct {
	Issues []Issue
}

// Error lists the issues, "at /a: required; at /b: expected string, got
// number", the first eight and how many more.
func (e *InvalidError) Error() string {
	parts := make([]string, 0, min(len(e.Issues), maxListed)+1)
	for i, is := range e.Issues {
		if i == maxListed {
			parts = append(parts, fmt.Sprintf("and %d more", len(e.Issues)-maxListed))
			break
		}
		parts = append(parts, is.String())
	}
	return strings.Join(parts, "; ")
}

// Validate checks data against the schema: nil when it meets it, an
// [*InvalidError] when it does not, an error wrapping [ErrNotJSON] when
// data is not JSON.
func (s *Schema) Validate(data []byte) error {
	issues, err := s.Check(data)
	if err != nil {
		return err
	}
	if len(issues) == 0 {
		return nil
	}
	return &InvalidError{Issues: issues}
}
