// Package jsscan is a linear, allocation-light scan of JavaScript source that
// runs before the source reaches goja's parser and compiler.
//
// goja's parser and compiler recurse on the Go stack without a depth limit:
// a source nested a few hundred thousand levels deep kills the whole
// process with a fatal stack overflow that recover cannot catch. Some of
// goja's parsing is quadratic in nesting, and its compiler folds long
// operator chains in quadratic time (the sandbox turns folding off after
// parsing, so for folding the chain limit is a second line of defence).
// Scan rejects such sources first.
//
// Scan is a tokenizer, not a parser: it skips strings, comments, template
// text and regular expression literals, and counts
//
//   - bracket nesting: ( [ { and the ${ of template literals;
//   - the length of operator chains: operator tokens in one segment of an
//     expression, where `;`, `,`, `{` and `}` end a segment, and a segment
//     inside brackets counts on from the count where its bracket opened
//     (so `a=>a=>…(0, a=>a=>…` cannot nest arrows, which goja parses in
//     quadratic time, without limit).
//
// Where JavaScript's grammar is ambiguous to a tokenizer (is `/` a division or
// the start of a regular expression?), Scan chooses the reading under which
// the brackets it counts can only be more, never fewer, than the parser's,
// and a closing bracket only closes an opening bracket of its own kind. After
// of, yield and await, which are names in some code and keywords in other,
// it takes both readings: the text up to the next `/` is skipped as a regexp
// and also scanned as code. The source size limit applied before Scan
// bounds what any mistake could hide.
package jsscan

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Limits are the bounds Scan enforces. A zero field is not checked.
type Limits struct {
	// MaxDepth is the deepest bracket nesting allowed.
	MaxDepth int
	// MaxChain is the most operator tokens allowed in one segment.
	MaxChain int
}

// Report is what Scan learned about an accepted source.
type Report struct {
	// MaxDepth is the deepest bracket nesting seen.
	MaxDepth int
	// Await is true when the identifier `await` appears outside strings,
	// comments and property names: the code may use top-level await.
	Await bool
}

// What names the limit a [Violation] broke.
type What int

// The limits Scan enforces.
const (
	// Depth is bracket nesting.
	Depth What = iota + 1
	// Chain is the length of an operator chain.
	Chain
)

// Violation reports where a source broke a limit.
type Violation struct {
	What   What
	Limit  int
	Line   int // 1-based
	Column int // 1-based, in bytes
}

// Error returns the error's message.
func (v *Violation) Error() string {
	switch v.What {
	case Depth:
		return fmt.Sprintf("brackets nested more than %d levels deep at line %d, column %d", v.Limit, v.Line, v.Column)
	default:
		return fmt.Sprintf("more than %d operators in one expression at line %d, column %d", v.Limit, v.Line, v.Column)
	}
}

// token classes that matter for the regexp-or-division decision.
const (
	prevNone      = iota // start of input, or after an operator or punctuator: `/` starts a regexp
	prevValue            // after an identifier, literal, `)` `]` `}`: `/` divides
	prevKeyword          // after a keyword such as return or typeof: `/` starts a regexp
	prevCtrlParen        // after the `)` of if/while/for/with: `/` starts a regexp
)

// opener kinds on the bracket stack.
const (
	openParen     = iota // (
	openCtrlParen        // ( right after if, while, for or with
	openBracket          // [
	openBrace            // {
	openTemplate         // ${ inside a template literal
)

// keywords after which an expression (so a regexp) may start.
var exprKeywords = map[string]bool{
	"return": true, "typeof": true, "instanceof": true, "in": true, "of": true, "new": true,
	"delete": true, "void": true, "throw": true, "case": true,
	"yield": true, "await": true, "extends": true,
}

// prefix keywords that count as operators in a chain.
var operatorKeywords = map[string]bool{
	"typeof": true, "instanceof": true, "in": true, "new": true, "delete": true, "void": true,
	"await": true, "yield": true,
}

// keywords that are also valid names in some code (for (x of …) beside
// let of = 1; yield and await outside generators and async functions): a `/`
// after them may start a regexp or divide.
var contextualKeywords = map[string]bool{"of": true, "yield": true, "await": true}

// keywords whose parenthesised head may be followed by a regexp statement.
var ctrlKeywords = map[string]bool{"if": true, "while": true, "for": true, "with": true}

type scanner struct {
	src  string
	lim  Limits
	i    int
	line int
	col0 int // offset of the current line's first byte

	stack []int
	bases []int // the operator count when each bracket on stack opened
	prev  int
	rep   Report

	chain       int
	lastIdent   string
	lastKeyword string // the keyword that set prev to prevKeyword
	dot         bool   // the last token was . or ?.
	nl          bool   // a line terminator since the last token
	nlBefore    bool   // a line terminator before the current token
	nested      bool   // a scan of regexp text as code (see scanAsCode)
	err         *Violation
}

// Scan checks src against lim. It returns a *Violation when src breaks a
// limit; a source with syntax errors is otherwise accepted, for the parser
// to report.
func Scan(src string, lim Limits) (Report, error) {
	s := &scanner{src: src, lim: lim, line: 1, stack: make([]int, 0, 32), bases: make([]int, 0, 32)}
	s.run()
	if s.err != nil {
		return s.rep, s.err
	}
	return s.rep, nil
}

// fail records a violation at the token that ends at the current offset.
func (s *scanner) fail(what What, limit int) {
	if s.err == nil {
		s.err = &Violation{What: what, Limit: limit, Line: s.line, Column: max(s.i-s.col0, 1)}
	}
}

func (s *scanner) push(kind int) {
	s.stack = append(s.stack, kind)
	s.bases = append(s.bases, s.chain)
	if d := len(s.stack); d > s.rep.MaxDepth {
		s.rep.MaxDepth = d
		if s.lim.MaxDepth > 0 && d > s.lim.MaxDepth {
			s.fail(Depth, s.lim.MaxDepth)
		}
	}
}

// pop closes the innermost opener if it is one of kinds; it returns the kind
// closed, or -1.
func (s *scanner) pop(kinds ...int) int {
	if len(s.stack) == 0 {
		return -1
	}
	top := s.stack[len(s.stack)-1]
	for _, k := range kinds {
		if top == k {
			s.stack = s.stack[:len(s.stack)-1]
			s.bases = s.bases[:len(s.bases)-1]
			return top
		}
	}
	return -1
}

// resetSegment starts a new segment of operators: the count goes back to
// what it was when the innermost bracket opened, so operators count along
// the whole path of nested brackets (x=a=>a=>…(0,a=>a=>… nests arrows
// without end in segments of its own).
func (s *scanner) resetSegment() {
	s.chain = 0
	if n := len(s.bases); n > 0 {
		s.chain = s.bases[n-1]
	}
}

func (s *scanner) operator(n int) {
	s.chain += n
	if s.lim.MaxChain > 0 && s.chain > s.lim.MaxChain {
		s.fail(Chain, s.lim.MaxChain)
	}
}

func (s *scanner) newline() {
	s.line++
	s.col0 = s.i + 1
}

func (s *scanner) run() {
	for s.i < len(s.src) && s.err == nil {
		c := s.src[s.i]
		switch {
		case c == '\n':
			s.newline()
			s.nl = true
			s.i++
			continue
		case c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f':
			s.nl = s.nl || c == '\r'
			s.i++
			continue
		case c >= 0x80 && unicodeSpace(s.src[s.i:]) > 0:
			s.nl = s.nl || strings.HasPrefix(s.src[s.i:], "\u2028") || strings.HasPrefix(s.src[s.i:], "\u2029")
			s.i += unicodeSpace(s.src[s.i:])
			continue
		case c == '/' && s.peek(1) == '/':
			s.lineComment()
			continue
		case c == '/' && s.peek(1) == '*':
			line := s.line
			s.blockComment()
			s.nl = s.nl || s.line != line
			continue
		}
		// A token. Whether the one before it was a `.` matters to names, and
		// whether a line terminator came between them to ++ and --.
		afterDot := s.dot
		s.dot = false
		s.nlBefore, s.nl = s.nl, false
		switch {
		case c == '\'' || c == '"':
			s.lastIdent = ""
			s.str(c)
			s.value()
		case c == '`':
			s.lastIdent = ""
			s.i++
			s.template()
		case isDigit(c) || (c == '.' && isDigit(s.peek(1))):
			s.lastIdent = ""
			s.number()
			s.value()
		case isIdentStart(c):
			s.ident(afterDot)
		case c == '/':
			s.lastIdent = ""
			if s.prev == prevValue || (s.nested && s.prev == prevKeyword && contextualKeywords[s.lastKeyword]) {
				s.i++
				if s.peek(0) == '=' {
					s.i++
				}
				s.operator(1)
				s.prev = prevNone
			} else {
				s.regexp()
				s.value()
			}
		default:
			s.punct(c)
		}
	}
}

// value records a token that ends an operand.
func (s *scanner) value() {
	s.prev = prevValue
}

func (s *scanner) peek(k int) byte {
	if s.i+k < len(s.src) {
		return s.src[s.i+k]
	}
	return 0
}

// lineComment skips a // comment up to the line terminator that ends it, as
// goja's parser does: \n, \r, U+2028 or U+2029.
func (s *scanner) lineComment() {
	for s.i < len(s.src) {
		switch c := s.src[s.i]; {
		case c == '\n' || c == '\r':
			return
		case c == 0xE2 && s.peek(1) == 0x80 && (s.peek(2) == 0xA8 || s.peek(2) == 0xA9):
			return
		}
		s.i++
	}
}

func (s *scanner) blockComment() {
	s.i += 2
	for s.i < len(s.src) {
		if s.src[s.i] == '*' && s.peek(1) == '/' {
			s.i += 2
			return
		}
		if s.src[s.i] == '\n' {
			s.newline()
		}
		s.i++
	}
}

func (s *scanner) str(q byte) {
	s.i++
	for s.i < len(s.src) {
		c := s.src[s.i]
		switch {
		case c == '\\':
			s.i++
			if s.peek(0) == '\r' && s.peek(1) == '\n' {
				s.i++
			}
			if s.peek(0) == '\n' {
				s.newline()
			}
			s.i++
		case c == q:
			s.i++
			return
		case c == '\n': // unterminated: let the parser report it
			return
		default:
			s.i++
		}
	}
}

// template scans template text up to its closing backquote, or up to a ${,
// which it pushes.
func (s *scanner) template() {
	for s.i < len(s.src) {
		c := s.src[s.i]
		switch {
		case c == '\\':
			if s.peek(1) == '\n' {
				s.i++
				s.newline()
			}
			s.i += 2
		case c == '`':
			s.i++
			s.value()
			return
		case c == '$' && s.peek(1) == '{':
			s.i += 2
			s.push(openTemplate)
			s.prev = prevNone
			s.resetSegment()
			return
		case c == '\n':
			s.newline()
			s.i++
		default:
			s.i++
		}
	}
}

func (s *scanner) number() {
	for s.i < len(s.src) {
		c := s.src[s.i]
		if isIdentPart(c) || c == '.' {
			s.i++
			continue
		}
		if (c == '+' || c == '-') && s.i > 0 && (s.src[s.i-1] == 'e' || s.src[s.i-1] == 'E') && !isHexPrefix(s.src, s.i) {
			s.i++
			continue
		}
		break
	}
}

// isHexPrefix reports whether the number ending before i is hexadecimal, where
// e is a digit and not an exponent.
func isHexPrefix(src string, i int) bool {
	j := i - 1
	for j > 0 && (isIdentPart(src[j-1]) || src[j-1] == '.') {
		j--
	}
	return j+1 < len(src) && src[j] == '0' && (src[j+1] == 'x' || src[j+1] == 'X')
}

// regexp skips a regular expression literal. After of, yield or await,
// which are keywords in some places and plain names in others, the parser
// may read the same `/` as a division, and the text up to the next `/` as
// code; the scanner then also scans that text as code, so that whatever it
// holds counts under either reading.
func (s *scanner) regexp() {
	start := s.i
	s.i++ // the opening /
	s.skipRegexp()
	if s.prev == prevKeyword && contextualKeywords[s.lastKeyword] && !s.nested {
		s.scanAsCode(start+1, min(s.i, len(s.src)))
	}
}

func (s *scanner) skipRegexp() {
	inClass := false
	for s.i < len(s.src) {
		c := s.src[s.i]
		switch {
		case c == '\\':
			s.i += 2
			continue
		case c == '\n':
			return // unterminated: let the parser report it
		case c == '[':
			inClass = true
		case c == ']':
			inClass = false
		case c == '/' && !inClass:
			s.i++
			for s.i < len(s.src) && isIdentPart(s.src[s.i]) { // flags
				s.i++
			}
			return
		}
		s.i++
	}
}

// scanAsCode scans src[from:to] as the code after a division operator, in a
// scanner that starts from this one's state, and takes on its findings. It
// does not branch again: a `/` after of, yield or await in that text is
// read as a division only.
func (s *scanner) scanAsCode(from, to int) {
	sub := scanner{
		src: s.src[:to], lim: s.lim, i: from, line: s.line, col0: s.col0,
		stack: append(make([]int, 0, len(s.stack)+8), s.stack...),
		bases: append(make([]int, 0, len(s.bases)+8), s.bases...),
		rep:   s.rep, chain: s.chain, nested: true,
	}
	sub.operator(1) // the division
	sub.run()
	s.rep.MaxDepth = max(s.rep.MaxDepth, sub.rep.MaxDepth)
	s.rep.Await = s.rep.Await || sub.rep.Await
	if s.err == nil {
		s.err = sub.err
	}
}

// ident scans a name or keyword; afterDot is true when the token before it
// was `.` or `?.`, so it is a property name.
func (s *scanner) ident(afterDot bool) {
	start := s.i
	for s.i < len(s.src) && isIdentPart(s.src[s.i]) {
		if s.src[s.i] >= 0x80 && unicodeSpace(s.src[s.i:]) > 0 {
			break
		}
		s.i++
	}
	word := s.src[start:s.i]
	s.lastIdent = ""
	s.lastKeyword = word
	switch {
	case afterDot:
		s.value()
	case word == "true" || word == "false" || word == "null":
		s.value()
	case word == "await":
		s.rep.Await = true
		s.operator(1)
		s.prev = prevKeyword
	case operatorKeywords[word]:
		s.operator(1)
		s.prev = prevKeyword
	case exprKeywords[word]:
		s.prev = prevKeyword
	default:
		if ctrlKeywords[word] || word == "else" || word == "do" {
			s.operator(1) // statement nesting without braces: if(1)if(1)…
		}
		if word == "else" || word == "do" {
			s.prev = prevKeyword
			return
		}
		s.lastIdent = word
		s.value()
	}
}

func (s *scanner) punct(c byte) {
	ident := s.lastIdent
	s.lastIdent = ""
	switch c {
	case '(':
		s.i++
		if ctrlKeywords[ident] {
			s.push(openCtrlParen)
		} else {
			s.push(openParen)
		}
		s.prev = prevNone
	case ')':
		s.i++
		switch s.pop(openParen, openCtrlParen) {
		case openCtrlParen:
			s.prev = prevCtrlParen
		default:
			s.value()
		}
	case '[':
		s.i++
		s.push(openBracket)
		s.prev = prevNone
	case ']':
		s.i++
		s.pop(openBracket)
		s.value()
	case '{':
		s.i++
		s.push(openBrace)
		s.prev = prevNone
		s.resetSegment()
	case '}':
		s.i++
		if s.pop(openTemplate) == openTemplate {
			s.template()
			return
		}
		s.pop(openBrace)
		s.value()
		s.resetSegment()
	case ';', ',':
		s.i++
		s.prev = prevNone
		s.resetSegment()
	case '.':
		if s.peek(1) == '.' && s.peek(2) == '.' {
			s.i += 3
		} else {
			s.i++
			s.dot = true
		}
		s.prev = prevNone
	default:
		s.operatorToken(c)
	}
}

// operatorToken consumes one operator or other punctuator.
func (s *scanner) operatorToken(c byte) {
	two := ""
	if s.i+1 < len(s.src) {
		two = s.src[s.i : s.i+2]
	}
	switch two {
	case "&&", "||", "??":
		s.i += 2
		if s.peek(0) == '=' {
			s.i++
		}
		s.operator(1)
		s.prev = prevNone
		return
	case "++", "--":
		// Postfix after a value on the same line (a following `/` divides),
		// prefix otherwise: no line terminator may come before a postfix
		// ++, so `a\n++/x/` is `a; ++/x/`.
		s.i += 2
		s.operator(1)
		if s.prev != prevValue || s.nlBefore {
			s.prev = prevNone
		}
		return
	case "=>":
		s.i += 2
		s.operator(1)
		s.prev = prevNone
		return
	case "?.":
		if !isDigit(s.peek(2)) {
			s.i += 2
			s.prev = prevNone
			s.dot = true
			return
		}
	}
	// Any other run of operator characters is one or more operators; count
	// the run as one token per character, which over-counts long operators
	// such as >>>= only by a constant.
	n := 0
	for s.i < len(s.src) && isOperatorChar(s.src[s.i]) {
		s.i++
		n++
	}
	if n == 0 { // a byte that is no JavaScript token (such as @)
		s.i++
		return
	}
	s.operator(n)
	s.prev = prevNone
}

func isOperatorChar(c byte) bool {
	switch c {
	case '=', '+', '-', '*', '%', '<', '>', '&', '|', '^', '!', '~', '?', ':':
		return true
	}
	return false
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func isIdentStart(c byte) bool {
	return c == '_' || c == '$' || c == '\\' || (c|0x20 >= 'a' && c|0x20 <= 'z') || c >= 0x80 || c == '#'
}

func isIdentPart(c byte) bool {
	return isIdentStart(c) || isDigit(c)
}

// unicodeSpace returns the length of the white space or line terminator
// beyond ASCII that b starts with (the Zs category, U+FEFF, U+2028 and
// U+2029, all of which goja skips between tokens), or 0.
func unicodeSpace(b string) int {
	r, n := utf8.DecodeRuneInString(b)
	if r == '\uFEFF' || r == '\u2028' || r == '\u2029' || unicode.Is(unicode.Zs, r) {
		return n
	}
	return 0
}
