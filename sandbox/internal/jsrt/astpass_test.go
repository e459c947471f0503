package jsrt

import (
	"context"
	"strings"
	"testing"

	"github.com/dop251/goja"
	"github.com/dop251/goja/parser"
	"github.com/stretchr/testify/require"
)

// TestNothingIsFoldedWhileCompiling compiles code that goja's constant
// folding would compute for minutes or hours (found by fuzzing and by
// review). With folding on, each case hangs until the test times out.
func TestNothingIsFoldedWhileCompiling(t *testing.T) {
	long := `"` + strings.Repeat("A", 20000) + `"`
	cases := map[string]string{
		"a BigInt power of a power":                   "2n**(3n**20n)",
		"a product of big powers":                     "(" + strings.Repeat("(3n**2000000n)*", 10) + "1n)",
		"&& over a costly constant doubles per level": "(3n**1300000n>0)" + strings.Repeat("&&1", 20),
		"&& over a long sum":                          "(1" + strings.Repeat("+1", 400) + ")" + strings.Repeat("&&1", 20),
		"&& over long strings":                        "(" + long + "+" + long + ")" + strings.Repeat("&&1", 20),
		"a power hidden after a block":                "{}/`/;2n**(3n**20n)//`",
		"a power after top-level await":               "await 1;\n2n ** (2n ** 30n)",
		"a computed key":                              "({[2n**(3n**20n)]: 1})",
		"an if condition":                             "if ((3n**1300000n>0)" + strings.Repeat("&&1", 20) + ") {}",
	}
	for name, code := range cases {
		t.Run(name, func(t *testing.T) {
			_, err := compileCode(code, DefaultLimits())
			require.NoError(t, err)
		})
	}
}

// TestUnfoldedCodeMeansTheSame runs expressions whose operands goja would
// otherwise fold, and private-name checks the pass must leave alone.
func TestUnfoldedCodeMeansTheSame(t *testing.T) {
	e := newTestInProcess(t, Config{})
	cases := []valueCase{
		{"1 + 2 * 3 - 4 / 2", `5`},
		{`"a" + "b" + 1 + 2`, `"ab12"`},
		{"2 ** 3 ** 2", `512`},
		{"-(2 ** 3)", `-8`},
		{"0 || 'x'", `"x"`},
		{"1 && 2 && 3", `3`},
		{"null ?? 5", `5`},
		{"0 ?? 5", `0`},
		{"2n ** 64n - 1n", `{"$bigint":"18446744073709551615"}`},
		{"try { 1n + 1 } catch (e) { e.name }", `"TypeError"`},
		{"typeof nope === 'undefined'", `true`},
		{"'b' in {b: 1}", `true`},
		{"[1] instanceof Array", `true`},
		{"class A { #x = 1; static has(o) { return #x in o } }; [A.has(new A()), A.has({})]", `[true,false]`},
		{"let x = 5; x += 2 * 3; x", `11`},
		{"let o = {n: 0}; o.n ||= 4; o.n &&= o.n + 1; o.n ??= 9; o.n", `5`},
		{"({[1 + 1]: 'two'})[2]", `"two"`},
		{"let f = function () {}; f.name", `"f"`},
		{"let i = 0; while (1 < 2 && i < 3) i++; i", `3`},
		{"switch (1 + 1) { case 2: 'two'; break; default: 'other' }", `"two"`},
		{"const s = 'hello wq'; " + strings.Repeat("s.includes('w?') || ", 30) + "s.includes('wq')", `true`},
	}
	requireValues(t, e, cases)
}

// valueCase is code and the JSON of the value it must end with.
type valueCase struct{ code, want string }

// requireValues runs each case as a subtest named by its code.
func requireValues(t *testing.T, e Executor, cases []valueCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.code[:min(len(tc.code), 60)], func(t *testing.T) {
			res, err := e.Run(context.Background(), tc.code)
			require.NoError(t, err)
			require.JSONEq(t, tc.want, string(res.Value))
		})
	}
}

// TestRegexpLiteralsAreBounded checks the budget on the compiled size of a
// program's regexp literals, which goja compiles while compiling the code.
func TestRegexpLiteralsAreBounded(t *testing.T) {
	e := newTestInProcess(t, Config{})
	refused := []struct {
		name, code string
		line, col  int
	}{
		{"nested counted repeats", "const ok = 1;\nconst re = /(?:" + strings.Repeat("a", 3300) + "){999}/", 2, 12},
		{"many small ones", "const rs = [" + strings.Repeat("/a{1000}/, ", 300) + "]", 1, 2884},             // the 262nd
		{"counted repeats of a group", strings.Repeat("/(abc){999}/;", 60), 1, 677},                         // the 53rd: (3+2)×999+1 each
		{"a large class repeated, anchored", "const cjk = /^[" + cjkEveryOther(3000) + "]{0,490}$/", 1, 13}, // 85 MB in Go's one-pass matcher
	}
	for _, tc := range refused {
		t.Run(tc.name, func(t *testing.T) {
			res, err := e.Run(context.Background(), tc.code)
			require.ErrorIs(t, err, ErrMemoryLimit)
			require.NotNil(t, res)
			var se *Error
			require.ErrorAs(t, err, &se)
			require.Contains(t, se.Message, "regular expressions up to line")
			require.Equal(t, tc.line, se.Line, se.Message)
			require.Equal(t, tc.col, se.Column, se.Message)
		})
	}
	requireValues(t, e, []valueCase{ // a date; fifty dates; IPv6; regexp2 forms; flags
		{`/^\d{4}-\d{2}-\d{2}$/.test("2026-11-29")`, `true`},
		{strings.Repeat(`/^\d{4}-\d{2}-\d{2}$/;`, 50) + "1", `1`},
		{`/^(([0-9a-fA-F]{1,4}:){7}[0-9a-fA-F]{1,4}|([0-9a-fA-F]{1,4}:){1,7}:|([0-9a-fA-F]{1,4}:){1,6}:[0-9a-fA-F]{1,4})$/.test("fe80:0:0:0:0:0:0:1")`, `true`},
		{`/a(?=b)/.test("ab")`, `true`},
		{`/(a)\1{500}/.test("aa")`, `false`},
		{`/A{3}/i.test("aaa")`, `true`},
	})
}

// BenchmarkCompile compares admitting and compiling a small program (size
// limit, prescan, loom's AST pass, goja's parser and compiler) with goja's
// parser and compiler alone:
//
//	go test ./sandbox -run '^$' -bench '^BenchmarkCompile$' -benchmem
func BenchmarkCompile(b *testing.B) {
	code := "function fact(n) { let r = 1n; for (let i = 2n; i <= n; i++) r *= i; return r }\n" +
		"const words = 'a b c'.split(' ').map(w => w.toUpperCase() + '!');\n" +
		"const m = 2n ** 61n - 1n;\n[fact(25n) % m, words.join(''), /\\d{4}/.test('2026')]"
	b.Run("admitted", func(b *testing.B) {
		lim := DefaultLimits()
		for b.Loop() {
			if _, err := compileCode(code, lim); err != nil {
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

// cjkEveryOther is n CJK characters, every other code point, so that a
// class of them has n ranges.
func cjkEveryOther(n int) string {
	var b strings.Builder
	for i := range n {
		b.WriteRune(rune(0x4E00 + 2*i))
	}
	return b.String()
}

// TestCompileReportsFunctionKinds: the run locks AsyncFunction's and
// GeneratorFunction's constructors from what compile reports, so every way
// of defining such a function must be reported.
func TestCompileReportsFunctionKinds(t *testing.T) {
	cases := []struct {
		name string
		code string
		want funcKinds
	}{
		{"plain functions", `function f(n){return n<=1?1:n*f(n-1)} [f(15), (() => 1)(), {m(){ return 2 }}.m()]`, 0},
		{"a class with accessors", `class C { get x(){ return 1 } set x(v){} static m(){} }; new C().x`, 0},
		{"generator declaration", `function* g(){ yield 1 }; 1`, generatorFuncs},
		{"generator expression", `const g = function*(){}; 1`, generatorFuncs},
		{"generator method", `({*g(){}}); 1`, generatorFuncs},
		{"class generator method", `class C { *[Symbol.iterator](){} }; 1`, generatorFuncs},
		{"async declaration", `async function f(){}; 1`, asyncFuncs},
		{"async arrow", `const f = async x => x; 1`, asyncFuncs},
		{"async method", `class C { static async m(){} }; 1`, asyncFuncs},
		{"async arrow in a parameter default", `function f(a = async () => 0){}; 1`, asyncFuncs},
		{"top-level await (the wrapper is an async arrow)", `await 1`, asyncFuncs},
		{"both, nested", `function f(){ return function*(){ return async () => 0 } }; 1`, asyncFuncs | generatorFuncs},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := compileCode(c.code, DefaultLimits())
			require.NoError(t, err)
			require.Equal(t, c.want, got.kinds)
		})
	}
}
