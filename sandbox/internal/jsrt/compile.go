package jsrt

import (
	"errors"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/dop251/goja"
	"github.com/dop251/goja/ast"
	"github.com/dop251/goja/parser"

	"github.com/loomwork/loom/sandbox/internal/jsscan"
)

// sourceName is the file name the code's stack frames show.
const sourceName = "code.js"

// The wrapper for code that uses top-level await: goja runs scripts, where
// await is only valid inside async functions.
const (
	awaitPrefix = "(async () => {"
	awaitSuffix = "\n})()"
	returnWord  = "return "
)

// posMap maps positions in the compiled source back to the code as
// written, when the code was wrapped for top-level await.
type posMap struct {
	wrapped         bool
	inserted        bool
	insLine, insCol int // where returnWord was inserted, in the code's coordinates
	lastLine        int // the code's last line
}

// orig maps a 1-based line and column of the compiled source to the code's;
// ok is false for positions inside the wrapper.
func (m posMap) orig(line, col int) (int, int, bool) {
	if !m.wrapped {
		return line, col, true
	}
	if line > m.lastLine {
		return 0, 0, false
	}
	if line == 1 {
		col -= len(awaitPrefix)
		if col < 1 {
			return 0, 0, false
		}
	}
	if m.inserted && line == m.insLine && col > m.insCol {
		col -= len(returnWord)
		if col < m.insCol {
			col = m.insCol
		}
	}
	return line, col, true
}

// Check admits and compiles code under lim without running it, and
// returns the *[Error] a run of it would fail with before it starts (a
// syntax error, code too large or nested too deep, a construct the
// sandbox refuses), or nil. Callers that hold code from a file check it
// when they load the file rather than at its first run.
func Check(code string, lim Limits) error {
	lim, err := lim.withDefaults()
	if err != nil {
		return err
	}
	_, err = compileCode(code, lim)
	return err
}

// compiled is a program ready to run, with what the run needs to know of
// it: how its positions map to the code's, and what its syntax shows it
// can reach.
type compiled struct {
	prog *goja.Program
	pos  posMap
	facts
}

// compileCode admits and compiles code: admit (size, UTF-8, nesting
// prescan), goja's parser, loom's pass over the AST (see prepare), then
// goja's compiler. Code that uses top-level await
// is wrapped in an async function that returns its final expression.
func compileCode(code string, lim Limits) (compiled, error) {
	var pm posMap
	rep, err := Admit(code, lim)
	if err != nil {
		return compiled{pos: pm}, err
	}
	if rep.Await {
		if prg, m, ok := wrapAwait(code); ok {
			f, e := prepare(prg, m)
			if e != nil {
				return compiled{pos: m}, e
			}
			p, err := goja.CompileAST(prg, false)
			if err == nil {
				return compiled{p, m, f}, nil
			}
		}
	}
	prg, err := parser.ParseFile(nil, sourceName, code, 0)
	if err != nil {
		return compiled{pos: pm}, syntaxError(err, code)
	}
	f, e := prepare(prg, pm)
	if e != nil {
		return compiled{pos: pm}, e
	}
	p, err := goja.CompileAST(prg, false)
	if err != nil {
		return compiled{pos: pm}, syntaxError(err, code)
	}
	return compiled{p, pm, f}, nil
}

// wrapAwait wraps code in an async arrow function whose last statement, if
// it is an expression, is returned.
func wrapAwait(code string) (*ast.Program, posMap, bool) {
	m := posMap{wrapped: true, lastLine: strings.Count(code, "\n") + 1}
	src := awaitPrefix + code + awaitSuffix
	prg, err := parser.ParseFile(nil, sourceName, src, 0)
	if err != nil {
		return nil, m, false
	}
	body := wrapperBody(prg)
	if body == nil || len(body.List) == 0 {
		return prg, m, true
	}
	last := body.List[len(body.List)-1]
	if _, ok := last.(*ast.ExpressionStatement); !ok {
		return prg, m, true
	}
	// The statement starts at the first token after the previous statement
	// (or the wrapper's brace): the expression's own start can be inside
	// parentheses the parser dropped.
	from := int(body.LeftBrace) // 1-based index of "{" is the 0-based offset after it
	if len(body.List) > 1 {
		from = int(body.List[len(body.List)-2].Idx1()) - 1
	}
	at := skipSpaceAndComments(src, from)
	if at >= len(src)-len(awaitSuffix) {
		return prg, m, true
	}
	src2 := src[:at] + returnWord + src[at:]
	prg2, err := parser.ParseFile(nil, sourceName, src2, 0)
	if err != nil {
		return prg, m, true
	}
	off := at - len(awaitPrefix) // offset in code
	m.inserted = true
	m.insLine = strings.Count(code[:off], "\n") + 1
	m.insCol = off - (strings.LastIndexByte(code[:off], '\n') + 1) + 1
	return prg2, m, true
}

// wrapperBody finds the async arrow function's block in the wrapped
// program.
func wrapperBody(prg *ast.Program) *ast.BlockStatement {
	if len(prg.Body) != 1 {
		return nil
	}
	es, ok := prg.Body[0].(*ast.ExpressionStatement)
	if !ok {
		return nil
	}
	call, ok := es.Expression.(*ast.CallExpression)
	if !ok {
		return nil
	}
	fn, ok := call.Callee.(*ast.ArrowFunctionLiteral)
	if !ok {
		return nil
	}
	b, _ := fn.Body.(*ast.BlockStatement)
	return b
}

// skipSpaceAndComments returns the offset of the first token at or after i,
// skipping JavaScript's white space and line terminators (U+2028 and
// U+2029 among them), comments and semicolons.
func skipSpaceAndComments(s string, i int) int {
	for i < len(s) {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == ';' || isJSSpace(r) || isLineTerminator(r):
			i += size
		case strings.HasPrefix(s[i:], "//"):
			for i < len(s) {
				r, size := utf8.DecodeRuneInString(s[i:])
				if isLineTerminator(r) {
					break
				}
				i += size
			}
		case strings.HasPrefix(s[i:], "/*"):
			end := strings.Index(s[i+2:], "*/")
			if end < 0 {
				return len(s)
			}
			i += end + 4
		default:
			return i
		}
	}
	return i
}

// isLineTerminator reports JavaScript's line terminators.
func isLineTerminator(r rune) bool {
	return r == '\n' || r == '\r' || r == '\u2028' || r == '\u2029'
}

// isJSSpace reports JavaScript's white space (WhiteSpace in the spec).
func isJSSpace(r rune) bool {
	return r == '\t' || r == '\v' || r == '\f' || r == ' ' || r == '\u00a0' || r == '\ufeff' || unicode.Is(unicode.Zs, r)
}

// nestingError turns a prescan violation into a model-readable error.
func nestingError(v *jsscan.Violation) *Error {
	e := &Error{Kind: KindNestingTooDeep, Limit: int64(v.Limit), Line: v.Line, Column: v.Column}
	switch v.What {
	case jsscan.Depth:
		e.Message = fmt.Sprintf("The code is nested too deeply: brackets, braces or parentheses go more than %d levels deep at line %d, column %d (the limit). Flatten the code: use intermediate variables and helper functions.",
			v.Limit, v.Line, v.Column)
	default:
		e.Message = fmt.Sprintf("An expression is too long: more than %d operators in one expression, counting the expressions it is nested in, at line %d, column %d (the limit). Split it into several statements, or compute it with a loop.",
			v.Limit, v.Line, v.Column)
	}
	return e
}

// syntaxError turns a parser or compiler error into a model-readable error
// with the position in the code.
func syntaxError(err error, code string) *Error {
	msg, line, col := err.Error(), 0, 0
	var list parser.ErrorList
	var pe *parser.Error
	var ce *goja.CompilerSyntaxError
	var re *goja.CompilerReferenceError
	switch {
	case errors.As(err, &list) && len(list) > 0:
		msg, line, col = list[0].Message, list[0].Position.Line, list[0].Position.Column
	case errors.As(err, &pe):
		msg, line, col = pe.Message, pe.Position.Line, pe.Position.Column
	case errors.As(err, &ce):
		msg = ce.Message
		if ce.File != nil {
			p := ce.File.Position(ce.Offset)
			line, col = p.Line, p.Column
		}
	case errors.As(err, &re):
		msg = re.Message
		if re.File != nil {
			p := re.File.Position(re.Offset)
			line, col = p.Line, p.Column
		}
	}
	e := &Error{Kind: KindSyntax, Line: line, Column: col}
	var b strings.Builder
	b.WriteString("SyntaxError")
	if line > 0 {
		fmt.Fprintf(&b, " at line %d, column %d", line, col)
	}
	b.WriteString(": ")
	b.WriteString(msg)
	if line > 0 {
		if src := sourceLine(code, line); src != "" {
			b.WriteString("\n    ")
			b.WriteString(src)
		}
	}
	b.WriteString("\n")
	b.WriteString(syntaxHint(msg, code))
	e.Message = b.String()
	return e
}

// syntaxHint suggests the likely fix for common mistakes.
func syntaxHint(msg, code string) string {
	switch {
	case strings.Contains(msg, "Async generators"), strings.Contains(msg, "Unexpected token await") && strings.Contains(code, "for await"):
		return "Async generators and for await are not supported here; collect the values with await in a plain loop."
	case strings.Contains(code, "import ") || strings.Contains(code, "export "):
		return "The code runs as a plain script: import and export are not supported, and no modules are available. Remove them and write everything in one script."
	default:
		return "Fix the syntax. The code runs as a plain script (no import/export); the value of its final expression is the result, and top-level await works."
	}
}

// sourceLine returns line n (1-based) of code, cut to a readable length.
func sourceLine(code string, n int) string {
	for i := 1; i < n; i++ {
		j := strings.IndexByte(code, '\n')
		if j < 0 {
			return ""
		}
		code = code[j+1:]
	}
	if j := strings.IndexByte(code, '\n'); j >= 0 {
		code = code[:j]
	}
	code = strings.TrimRight(code, "\r")
	if len(code) > 200 {
		code = TruncateUTF8(code, 200) + "…"
	}
	return code
}
