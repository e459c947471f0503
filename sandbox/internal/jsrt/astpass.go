package jsrt

import (
	"fmt"
	"math/big"
	"reflect"

	"github.com/dop251/goja/ast"
	"github.com/dop251/goja/token"
)

// prepare is loom's pass over a parsed program, between goja's parser and
// its compiler, for the two things goja's compiler computes itself, in a VM
// or library call of its own that no interrupt, time limit or memory limit
// reaches:
//
//   - Constant folding. goja evaluates every binary expression whose
//     operands are constants while it compiles, and the operands of &&, ||
//     and ?? twice per level, so `2n ** (3n ** 20n)` (13 bytes) is a
//     minutes-long, 400 MB computation and `(3n**1300000n>0)&&1&&…` doubles
//     its cost with every &&. prepare wraps the left operand of every
//     binary expression in a one-element sequence, which goja never treats
//     as a constant: nothing is folded, and everything is computed when the
//     code runs, under the run's limits. A one-element sequence is its
//     element, so the meaning is unchanged (TestPrepareKeepsMeaning runs
//     123 programs both ways), except where goja's folding departs from
//     the spec: errors of constant expressions are now real TypeErrors at
//     their operator, and early errors behind a constant short-circuit are
//     reported. Cheap constant computed keys stay folded (foldKey).
//   - Regular expression literals. goja compiles them with Go's regexp,
//     which expands counted repeats: /(?:aaa…){999}/ with 3,300 a is a
//     3.3 KB literal that allocates 650 MB.
//     prepare bounds their estimated size together (see regexpCost).
//
// The AST's depth is bounded by the prescan's nesting limit and the source
// size limit.
//
// It also reports what the program defines that leads to built-ins a
// runtime's setup leaves out (facts), so that they are made before the
// code runs, and only for code that can reach them.
func prepare(prg *ast.Program, pm posMap) (facts, *Error) {
	p := pass{file: prg, pm: pm}
	walkAST(reflect.ValueOf(prg), p.visit)
	return p.facts, p.err
}

type pass struct {
	file    *ast.Program
	pm      posMap
	regexps float64 // estimated instructions of the regexp literals so far
	facts
	err *Error
}

// facts are what a program's syntax tree shows about the built-ins it can
// reach: the kinds of function it defines, and whether it has a regexp
// literal (which makes a RegExp, and so RegExp.prototype, without naming
// them).
type facts struct {
	kinds          funcKinds
	regexpLiterals bool
}

// funcKinds are the kinds of function a program defines whose prototype
// chain leads to a constructor of its own: AsyncFunction and
// GeneratorFunction, each of which compiles source text. Code can only
// reach them through a function of that kind, and no built-in, kit or
// host function is one, so a program that defines none cannot.
type funcKinds uint8

const (
	asyncFuncs funcKinds = 1 << iota
	generatorFuncs
)

// maxRegexpInsts bounds the estimated size of all of a program's regexp
// literals, in Go regexp instructions (about 40 bytes each when compiled).
const maxRegexpInsts = 1 << 18

func (p *pass) visit(v reflect.Value) bool {
	switch n := v.Interface().(type) {
	case *ast.FunctionLiteral: // declarations, expressions, methods, accessors
		if n.Async {
			p.kinds |= asyncFuncs
		}
		if n.Generator {
			p.kinds |= generatorFuncs
		}
	case *ast.ArrowFunctionLiteral:
		if n.Async {
			p.kinds |= asyncFuncs
		}
	case *ast.BinaryExpression:
		if _, private := n.Left.(*ast.PrivateIdentifier); !private { // #x in obj
			n.Left = &ast.SequenceExpression{Sequence: []ast.Expression{n.Left}}
		}
	case *ast.PropertyKeyed:
		if n.Computed {
			foldKey(n.Key)
		}
	case *ast.FieldDefinition:
		if n.Computed {
			foldKey(n.Key)
		}
	case *ast.MethodDefinition:
		if n.Computed {
			foldKey(n.Key)
		}
	case *ast.RegExpLiteral:
		p.regexpLiterals = true
		p.regexps += regexpCost(n.Pattern, n.Flags)
		if p.regexps > maxRegexpInsts {
			line, col := p.pos(n)
			p.err = &Error{Kind: KindMemory, Limit: maxRegexpInsts, Line: line, Column: col, Message: fmt.Sprintf(
				"The regular expressions up to line %d, column %d are too large: together they would compile to more than %d instructions (counted repeats multiply: (abc){999} is about 3,000). Use smaller repeat counts such as {1,50}, fewer regular expressions, or check lengths and characters in code.",
				line, col, maxRegexpInsts)}
			return false
		}
	}
	return true
}

// foldKey lets goja fold a computed property key again when it is a cheap
// constant (see cheapConstant), by unwrapping what visit wrapped in it:
// goja defines a folded key's property, with the name its function value
// takes, where it assigns an unfolded key's (running inherited setters,
// failing on inherited read-only properties) and names no function.
func foldKey(key ast.Expression) {
	if cheapConstant(key) {
		unwrap(key)
	}
}

// cheapConstant reports whether e is built from number, string, boolean
// and null literals with unary and binary operators other than **, && ||
// and ??: what goja folds in time linear in its size.
func cheapConstant(e ast.Expression) bool {
	switch e := e.(type) {
	case *ast.StringLiteral, *ast.BooleanLiteral, *ast.NullLiteral:
		return true
	case *ast.NumberLiteral:
		_, isBig := e.Value.(*big.Int)
		return !isBig
	case *ast.UnaryExpression:
		return !e.Postfix && e.Operator != token.DELETE && cheapConstant(e.Operand)
	case *ast.SequenceExpression:
		return len(e.Sequence) == 1 && cheapConstant(e.Sequence[0])
	case *ast.BinaryExpression:
		switch e.Operator {
		case token.EXPONENT, token.LOGICAL_AND, token.LOGICAL_OR, token.COALESCE:
			return false
		}
		return cheapConstant(e.Left) && cheapConstant(e.Right)
	}
	return false
}

// unwrap undoes visit's wrapping in a cheap constant expression.
func unwrap(e ast.Expression) {
	switch e := e.(type) {
	case *ast.UnaryExpression:
		unwrap(e.Operand)
	case *ast.BinaryExpression:
		if seq, ok := e.Left.(*ast.SequenceExpression); ok && len(seq.Sequence) == 1 {
			e.Left = seq.Sequence[0]
		}
		unwrap(e.Left)
		unwrap(e.Right)
	}
}

// pos is the 1-based line and column of n in the code as written, or
// zeros inside the wrapper for top-level await.
func (p *pass) pos(n ast.Node) (int, int) {
	f := p.file.File
	at := f.Position(int(n.Idx0()) - f.Base())
	line, col, ok := p.pm.orig(at.Line, at.Column)
	if !ok {
		return 0, 0
	}
	return line, col
}

// walkAST calls visit with each pointer to a node of goja's AST reachable
// from v, after the nodes inside it, until visit returns false. It returns
// false when stopped. It goes by reflection, so a node type added to goja's
// AST is walked too.
func walkAST(v reflect.Value, visit func(reflect.Value) bool) bool {
	switch v.Kind() {
	case reflect.Pointer:
		if v.IsNil() {
			return true
		}
		return walkAST(v.Elem(), visit) && visit(v)
	case reflect.Interface:
		if v.IsNil() {
			return true
		}
		return walkAST(v.Elem(), visit)
	case reflect.Struct:
		if v.Type().PkgPath() != astPkg {
			return true // file.File, big.Int and other non-node types
		}
		for i := range v.NumField() {
			if !walkAST(v.Field(i), visit) {
				return false
			}
		}
	case reflect.Slice:
		for i := range v.Len() {
			if !walkAST(v.Index(i), visit) {
				return false
			}
		}
	}
	return true
}

var astPkg = reflect.TypeFor[ast.Program]().PkgPath()
