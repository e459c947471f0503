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
// digits), which it folds in milliseconds.
//
// goja folds constant expressions while it compiles, in a VM of its own that
// no time or memory limit reaches. `2n ** (3n ** 20n)` is 13 bytes of
// source and a 400 MB, minutes-long computation; in process, that would run
// on the host before the run's clock starts.
const maxFoldedBigIntBits = 1 << 22

// checkBigIntFolds rejects code with a constant BigInt exponentiation or
// shift whose result could pass maxFoldedBigIntBits. It walks the AST only
// when the prescan saw a BigInt literal; the AST's depth is bounded by the
// prescan's nesting and chain limits.
func checkBigIntFolds(prg *ast.Program, pm posMap) *Error {
	var found *ast.BinaryExpression
	var bits float64
	walkAST(reflect.ValueOf(prg), func(b *ast.BinaryExpression) bool {
		switch b.Operator {
		case token.EXPONENT, token.SHIFT_LEFT, token.SHIFT_RIGHT:
		default:
			return true
		}
		if n, ok := bigIntBits(b); ok && n > maxFoldedBigIntBits {
			found, bits = b, n
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
	size := "more than 10^15 bits"
	if bits < 1e15 {
		size = fmt.Sprintf("about %.3g bits (%s)", bits, formatBytes(int64(bits/8)))
	}
	e.Message = fmt.Sprintf("A constant BigInt expression at line %d, column %d would be %s, more than the %s a constant may have: "+
		"constants are computed while the code compiles, outside the time and memory limits. Use smaller numbers, or modular arithmetic (a loop of multiplications with %% m).",
		e.Line, e.Column, size, formatBytes(maxFoldedBigIntBits/8))
	return e
}

// walkAST calls visit for each binary expression reachable from v, a node
// of goja's AST, until visit returns false. It returns false when stopped.
func walkAST(v reflect.Value, visit func(*ast.BinaryExpression) bool) bool {
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if v.IsNil() {
			return true
		}
		if b, ok := v.Interface().(*ast.BinaryExpression); ok && !visit(b) {
			return false
		}
		return walkAST(v.Elem(), visit)
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

// bigIntBits bounds from above the bit length of e's value when e is a
// constant expression of BigInt type that goja's compiler folds; ok is false
// for any other expression (not constant, or not a BigInt: mixing BigInt
// and Number throws before any work).
func bigIntBits(e ast.Expression) (bits float64, ok bool) {
	switch e := e.(type) {
	case *ast.NumberLiteral:
		if v, isBig := e.Value.(*big.Int); isBig {
			return float64(max(v.BitLen(), 1)), true
		}
	case *ast.UnaryExpression:
		if e.Postfix {
			return 0, false
		}
		switch e.Operator {
		case token.MINUS: // bits of the magnitude
			return bigIntBits(e.Operand)
		case token.BITWISE_NOT: // ~x is -x-1
			n, ok := bigIntBits(e.Operand)
			return n + 1, ok
		}
	case *ast.BinaryExpression:
		a, okA := bigIntBits(e.Left)
		b, okB := bigIntBits(e.Right)
		switch e.Operator {
		case token.LOGICAL_AND, token.LOGICAL_OR, token.COALESCE:
			if okA || okB {
				return max(a, b), true
			}
			return 0, false
		}
		if !okA || !okB {
			return 0, false
		}
		switch e.Operator {
		case token.PLUS, token.MINUS:
			return max(a, b) + 1, true
		case token.MULTIPLY:
			return a + b, true
		case token.SLASH, token.REMAINDER:
			return a, true
		case token.AND, token.OR, token.EXCLUSIVE_OR:
			return max(a, b), true
		case token.EXPONENT:
			if a <= 1 { // 0, 1 or -1: the result stays as small
				return 1, true
			}
			return a * magnitude(e.Right, b), true
		case token.SHIFT_LEFT, token.SHIFT_RIGHT: // a negative count shifts the other way
			return a + magnitude(e.Right, b), true
		}
	}
	return 0, false
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
