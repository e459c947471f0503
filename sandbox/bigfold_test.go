package sandbox

import (
	"context"
	"strings"
	"testing"

	"github.com/dop251/goja"
	"github.com/dop251/goja/parser"
	"github.com/stretchr/testify/require"
)

// TestConstantBigIntFolds checks that a constant BigInt expression too large
// for goja to fold at compile time is refused before it is compiled, with
// its position, and that ordinary BigInt constants still run.
func TestConstantBigIntFolds(t *testing.T) {
	e := newTestInProcess(t)
	refused := []struct {
		name, code string
		line, col  int
	}{
		{"power of a power", "2n**(3n**20n)", 1, 1},
		{"found by fuzzing, on line 2", "const x = 1;\nconst y = 7n ** 99999999n", 2, 11},
		{"shift", "1n << 5000000n", 1, 1},
		{"negative right shift", "1n >> -5000000n", 1, 1},
		{"inside a function never called", "function f() { return 10n ** 10n ** 10n }", 1, 23},
		{"behind a logical operator", "x = false || 3n ** 9999999n", 1, 14},
		{"under a unary minus", "-(5n ** 2000000n)", 1, 3},
		{"with top-level await", "await 1;\n2n ** (2n ** 30n)", 2, 1},
		{"a product of powers", "(3n ** 2000000n) * (3n ** 2000000n) << 1n", 1, 2},
		{"after a name the prescan reads as a keyword", "let of = 8; of / 2n ** (3n ** 20n) / 1", 1, 18},
		{"a product of powers each under the bound", "x = (3n ** 2000000n) * (3n ** 2000000n)", 1, 6},
	}
	for _, tc := range refused {
		t.Run(tc.name, func(t *testing.T) {
			res, err := e.Run(context.Background(), tc.code)
			require.ErrorIs(t, err, ErrMemoryLimit)
			require.NotNil(t, res)
			var se *Error
			require.ErrorAs(t, err, &se)
			require.Equal(t, KindMemory, se.Kind)
			require.Equal(t, tc.line, se.Line, se.Message)
			require.Equal(t, tc.col, se.Column, se.Message)
			require.Contains(t, se.Message, "constant BigInt expression")
			require.Contains(t, se.Message, "512 KiB")
		})
	}

	t.Run("many constants under the bound that add up", func(t *testing.T) {
		code := strings.Repeat("x = 3n ** 1000000n;\n", 12)
		_, err := e.Run(context.Background(), code)
		var se *Error
		require.ErrorAs(t, err, &se)
		require.Equal(t, KindMemory, se.Kind)
		require.Equal(t, 9, se.Line, se.Message) // 2 Mibit each, 16 Mibit in all
		require.Contains(t, se.Message, "add up to more than the 2 MiB")
	})

	allowed := []struct{ name, code, want string }{
		{"a 64-bit power", "2n ** 64n", `{"$bigint":"18446744073709551616"}`},
		{"one to a huge power", "1n ** (10n ** 30n)", `{"$bigint":"1"}`},
		{"minus one to a huge power", "(-1n) ** (2n ** 40n)", `{"$bigint":"1"}`},
		{"mixing types throws before any work", "try { 2n ** 1e9 } catch (e) { e.name }", `"TypeError"`},
		{"a power just under the bound", "String(7n ** 1000000n).length", `845099`},
		{"a huge power of a variable is not folded", "let b = 2n; typeof (() => b ** (2n ** 40n))", `"function"`},
		{"a bigint in a string", "'2n ** (3n ** 20n)'.length", `17`},
	}
	for _, tc := range allowed {
		t.Run(tc.name, func(t *testing.T) {
			res, err := e.Run(context.Background(), tc.code)
			require.NoError(t, err)
			require.JSONEq(t, tc.want, string(res.Value))
		})
	}
}

// BenchmarkCompileBigIntCheck compares admitting and compiling code with
// BigInt literals (size limit, prescan, the constant BigInt check, goja's
// parser and compiler) with goja's parser and compiler alone; code without
// BigInt literals skips the check:
//
//	go test ./sandbox -run '^$' -bench CompileBigInt -benchmem
func BenchmarkCompileBigIntCheck(b *testing.B) {
	code := "function fact(n) { let r = 1n; for (let i = 2n; i <= n; i++) r *= i; return r }\nconst m = 2n ** 61n - 1n;\nfact(25n) % m"
	b.Run("admitted", func(b *testing.B) {
		lim := DefaultLimits()
		for b.Loop() {
			if _, _, err := compileCode(code, lim); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("goja-only", func(b *testing.B) {
		for b.Loop() {
			prg, err := parser.ParseFile(nil, sourceName, code, 0)
			if err != nil {
				b.Fatal(err)
			}
			if _, err := goja.CompileAST(prg, false); err != nil {
				b.Fatal(err)
			}
		}
	})
}
