package sandbox

import (
	"fmt"
	"math"
	"math/big"
	"reflect"

	"github.com/dop251/goja/ast"
	"github.com/dop251/goja/token"
)

// maxFoldedBigIntBits bounds a constant BigInt expression that goja's
// compiler would compute: 4 Mibit (512 KiB, about 1.26 million decimal
// digits), which it folds in milliseconds. maxFoldedBigIntTotal bounds
// them all together, so that many such constants cannot add up to minutes.
//
// goja folds constant expressions while it compiles, in a VM of its own that
// no time or memory limit reaches. `2n ** (3n ** 20n)` is 13 bytes of
// source and a 400 MB, minutes-long computation; in process, that would run
// on the host before the run's clock starts.
const (
	maxFoldedBigIntBits  = 1 << 22
	maxFoldedBigIntTotal = 4 * maxFoldedBigIntBits
)

// checkBigIntFolds rejects code with a constant BigInt expression whose
// value could pass maxFoldedBigIntBits, or whose constant BigInt
// expressions together could pass maxFoldedBigIntTotal. It walks the AST only
// when the prescan saw a BigInt literal; the AST's depth is bounded by the
// prescan's nesting and chain limits.
func checkBigIntFolds(prg *ast.Program, pm posMap) *Error {
	f := folds{memo: make(map[*ast.BinaryExpression]bound)}
	var found *ast.BinaryExpression
	var bits float64
	walkAST(reflect.ValueOf(prg), func(b *ast.BinaryExpression) bool {
		r := f.binary(b)
		f.memo[b] = r
		if !r.ok {
			return true
		}
		f.total += r.bits
		if r.bits > maxFoldedBigIntBits || f.total > maxFoldedBigIntTotal {
			found, bits = b, r.bits
			return false
		}
		return true
	})
	if found == nil {
		return nil
	}
	e := &Error{Kind: KindMemory, Limit: maxFoldedBigIntBits / 8}
	p := prg.File.Position(int(found.Idx0()) - prg.File.Base())
	if l, c, ok := pm.orig(p.Line, p.Column); ok {
		e.Line, e.Column = l, c
	}
	const advice = "constants are computed while the code compiles, outside the time and memory limits. Use smaller numbers, or modular arithmetic (a loop of multiplications with % m)."
	if bits <= maxFoldedBigIntBits {
		e.Limit = maxFoldedBigIntTotal / 8
		e.Message = fmt.Sprintf("The constant BigInt expressions up to line %d, column %d add up to more than the %s the code's constants may have together: %s",
			e.Line, e.Column, formatBytes(maxFoldedBigIntTotal/8), advice)
		return e
	}
	size := "more than 10^15 bits"
	if bits < 1e15 {
		size = fmt.Sprintf("about %.3g bits (%s)", bits, formatBytes(int64(bits/8)))
	}
	e.Message = fmt.Sprintf("A constant BigInt expression at line %d, column %d would be %s, more than the %s a constant may have: %s",
		e.Line, e.Column, size, formatBytes(maxFoldedBigIntBits/8), advice)
	return e
}

// walkAST calls visit for each binary expression reachable from v, a node
// of goja's AST, after it visited those inside it, until visit returns
// false. It returns false when stopped.
func walkAST(v reflect.Value, visit func(*ast.BinaryExpression) bool) bool {
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if v.IsNil() {
			return true
		}
		if !walkAST(v.Elem(), visit) {
			return false
		}
		if v.Kind() == reflect.Pointer { // an interface's pointer was visited inside
			if b, ok := v.Interface().(*ast.BinaryExpression); ok {
				return visit(b)
			}
		}
		return true
	case reflect.Struct:
		if v.Type().PkgPath() != astPkg {
			return true // file.File and other non-node types
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

// folds bounds the constant BigInt expressions of one program.
type folds struct {
	memo  map[*ast.BinaryExpression]bound // of the binary expressions visited so far
	total float64                         // bits of all constant BigInt expressions so far
}

// bound is an upper bound on the bit length of an expression's value; ok is
// false unless the expression is a constant of BigInt type that goja's
// compiler folds (mixing BigInt and Number throws before any work).
type bound struct {
	bits float64
	ok   bool
}

func (f *folds) expr(e ast.Expression) bound {
	switch e := e.(type) {
	case *ast.NumberLiteral:
		if v, isBig := e.Value.(*big.Int); isBig {
			return bound{float64(max(v.BitLen(), 1)), true}
		}
	case *ast.UnaryExpression:
		if e.Postfix {
			return bound{}
		}
		switch e.Operator {
		case token.MINUS: // bits of the magnitude
			return f.expr(e.Operand)
		case token.BITWISE_NOT: // ~x is -x-1
			r := f.expr(e.Operand)
			r.bits++
			return r
		}
	case *ast.BinaryExpression:
		if r, ok := f.memo[e]; ok {
			return r
		}
		return f.binary(e)
	}
	return bound{}
}

// binary bounds e from its operands' bounds, which the post-order walk has
// memoised, so the whole walk is linear.
func (f *folds) binary(e *ast.BinaryExpression) bound {
	l, r := f.expr(e.Left), f.expr(e.Right)
	a, b := l.bits, r.bits
	switch e.Operator {
	case token.LOGICAL_AND, token.LOGICAL_OR, token.COALESCE:
		return bound{max(a, b), l.ok || r.ok}
	}
	if !l.ok || !r.ok {
		return bound{}
	}
	switch e.Operator {
	case token.PLUS, token.MINUS:
		return bound{max(a, b) + 1, true}
	case token.MULTIPLY:
		return bound{a + b, true}
	case token.SLASH, token.REMAINDER:
		return bound{a, true}
	case token.AND, token.OR, token.EXCLUSIVE_OR:
		return bound{max(a, b), true}
	case token.EXPONENT:
		if a <= 1 { // 0, 1 or -1: the result stays as small
			return bound{1, true}
		}
		return bound{a * magnitude(e.Right, b), true}
	case token.SHIFT_LEFT, token.SHIFT_RIGHT: // a negative count shifts the other way
		return bound{a + magnitude(e.Right, b), true}
	}
	return bound{}
}

// magnitude bounds |e| for a constant BigInt expression of at most bits
// bits: its exact value when e is a literal.
func magnitude(e ast.Expression, bits float64) float64 {
	if lit, ok := e.(*ast.NumberLiteral); ok {
		if v, ok := lit.Value.(*big.Int); ok {
			f, _ := new(big.Float).SetInt(v).Float64()
			return math.Abs(f)
		}
	}
	return math.Exp2(bits)
}
