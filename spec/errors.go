package spec

import (
	"errors"
	"fmt"
	"strings"

	"github.com/loomwork/loom/internal/editdist"
)

// ErrInvalid is what every [*Error] matches with errors.Is: the file is
// not a valid loom/v1 file.
var ErrInvalid = errors.New("invalid loom file")

// Error is one problem in a file: where it is, its YAML path, what is wrong
// and, when there is one, a hint how to fix it.
type Error struct {
	// File is the file's path as given; Line and Col count from 1 (0 when
	// the problem has no place, such as a missing file).
	File      string
	Line, Col int
	// Path is the YAML path of the value: agents.coder.tools[1].
	Path string
	// Msg says what is wrong; Hint how to fix it ("did you mean
	// instructions?").
	Msg, Hint string
	// Err is the cause when there is one to match with errors.Is
	// (ErrOutsideProject, ErrTooLarge, …), or nil.
	Err error
}

// Error returns "file:line:col: path: msg; hint".
func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(e.File)
	if e.Line > 0 {
		fmt.Fprintf(&b, ":%d:%d", e.Line, e.Col)
	}
	b.WriteString(": ")
	if e.Path != "" {
		b.WriteString(e.Path)
		b.WriteString(": ")
	}
	b.WriteString(e.Msg)
	if e.Hint != "" {
		b.WriteString("; ")
		b.WriteString(e.Hint)
	}
	return b.String()
}

// Unwrap returns [ErrInvalid] and the cause, when there is one.
func (e *Error) Unwrap() []error {
	if e.Err != nil {
		return []error{ErrInvalid, e.Err}
	}
	return []error{ErrInvalid}
}

// Errors are every problem found in a file, in file order. Loading and
// checking return all of them at once, so one pass fixes a file.
type Errors []*Error

// Error lists the problems one a line.
func (es Errors) Error() string {
	lines := make([]string, len(es))
	for i, e := range es {
		lines[i] = e.Error()
	}
	return strings.Join(lines, "\n")
}

// Unwrap returns each problem, for errors.Is and errors.As.
func (es Errors) Unwrap() []error {
	out := make([]error, len(es))
	for i, e := range es {
		out[i] = e
	}
	return out
}

// err returns es as an error, or nil when it is empty.
func (es Errors) err() error {
	if len(es) == 0 {
		return nil
	}
	return es
}

// nearest returns the candidate closest to s in edit distance, when it is
// close enough to be a likely typo, else "".
func nearest(s string, candidates []string) string {
	best, bestD := "", -1
	for _, c := range candidates {
		d := editdist.Distance(strings.ToLower(s), strings.ToLower(c))
		if bestD < 0 || d < bestD {
			best, bestD = c, d
		}
	}
	limit := max(2, len(s)/3)
	if bestD < 0 || bestD > limit {
		return ""
	}
	return best
}

// didYouMean is the hint for s among candidates, or "".
func didYouMean(s string, candidates []string) string {
	if n := nearest(s, candidates); n != "" {
		return "did you mean " + n + "?"
	}
	return ""
}
