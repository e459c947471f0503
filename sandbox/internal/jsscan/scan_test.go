package jsscan

import (
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestScanDepth(t *testing.T) {
	cases := []struct {
		name string
		src  string
		want int
	}{
		{"empty", "", 0},
		{"flat", "a + b; c()", 1},
		{"nested", "f([{a: (1)}])", 4},
		{"strings do not count", `"((((" + '[[[[' + "\"(("`, 0},
		{"comments do not count", "// ((((\n/* [[[[ */ 1", 0},
		{"regexp does not count", "x = /[(]{2}\\(/.test(s)", 1},
		{"regexp after if paren", "if (x) /((((/.test(s)", 1},
		{"division after paren", "(a) / (b)", 1},
		{"template text does not count", "`(((( [[[[`", 0},
		{"template substitutions count", "`${`${[1]}`}`", 3},
		{"line continuation in a string", "'a\\\r\n((((' ; [1]", 1},
		{"regexp class with slash", "/[/(]/.test(x); (1)", 1},
		{"property named like a keyword", "a.if(1); a.return /2/ 1", 1},
		{"postfix then division", "a++ / [[1]]", 2},
		{"of as a name, then division", "let of = 2; of / [[1]] / 1", 2},
		{"regexp after of", "for (const m of /[(]/g.exec(s)) m", 3}, // the for head, and [( read as code too
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			rep, err := Scan(tc.src, Limits{})
			require.NoError(t, err)
			require.Equal(t, tc.want, rep.MaxDepth)
		})
	}
}

func TestScanViolations(t *testing.T) {
	cases := []struct {
		name      string
		src       string
		lim       Limits
		what      What
		line, col int
	}{
		{"depth", "x = 1;\n  " + strings.Repeat("[", 5), Limits{MaxDepth: 4}, Depth, 2, 7},
		{"template depth", strings.Repeat("`${", 5), Limits{MaxDepth: 4}, Depth, 1, 15},
		{"operator chain", strings.Repeat("a+", 20) + "a", Limits{MaxChain: 10}, Chain, 1, 22},
		{"prefix run", strings.Repeat("!", 20) + "a", Limits{MaxChain: 10}, Chain, 1, 20},
		{"if chain", strings.Repeat("if(1)", 20) + "a", Limits{MaxChain: 10}, Chain, 1, 52},
		{"arrows nested through commas", "x=" + strings.Repeat(strings.Repeat("a=>", 6)+"(0,", 3), Limits{MaxChain: 10}, Chain, 1, 35},
		{"arrows nested through blocks", "x=" + strings.Repeat(strings.Repeat("a=>", 4)+"{", 3), Limits{MaxChain: 10}, Chain, 1, 34},
		// of, yield and await are names in some code: what follows their / is
		// also scanned as code, since the parser may read a division.
		{"depth after of as a name", "let of = 1; of / [[[[[1]]]]] / 1", Limits{MaxDepth: 4}, Depth, 1, 22},
		{"depth after yield as a name", "yield / " + strings.Repeat("[", 5) + " / 1", Limits{MaxDepth: 4}, Depth, 1, 13},
		{"chain after await as a name", "await / " + strings.Repeat("a+", 20) + "a / 1", Limits{MaxChain: 10}, Chain, 1, 26},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Scan(tc.src, tc.lim)
			var v *Violation
			require.True(t, errors.As(err, &v), "%v", err)
			require.Equal(t, tc.what, v.What)
			require.Equal(t, tc.line, v.Line)
			require.Equal(t, tc.col, v.Column)
			require.NotEmpty(t, v.Error())
		})
	}
}

// TestScanFindsCodeWhereTheParserDoes checks places where a tokenizer could
// take code for a comment, a regexp or a template and not see brackets the
// parser will recurse on: each source nests five brackets after the trick.
func TestScanFindsCodeWhereTheParserDoes(t *testing.T) {
	deep := "[[[[[1]]]]]"
	for name, src := range map[string]string{
		"line comment ended by \\r":              "//\r" + deep,
		"line comment ended by U+2028":           "//\u2028" + deep,
		"line comment ended by U+2029":           "//\u2029" + deep,
		"comment between . and a keyword":        "x = a./**/in / 1 /" + deep,
		"line comment between . and a keyword":   "x = a.//\ntypeof / 1 /" + deep,
		"no-break space after typeof":            "x = typeof\u00a0/`/;" + deep + "//`",
		"ideographic space after a name":         "x = y\u3000/ 2 /" + deep,
		"prefix ++ after a line break":           "let a = {}; a\n++/`/.x;" + deep + "//`",
		"await as a name before a block comment": "await / [/*]/;" + deep + ";'*/'",
	} {
		t.Run(name, func(t *testing.T) {
			_, err := Scan(src, Limits{MaxDepth: 4})
			var v *Violation
			require.True(t, errors.As(err, &v), "no violation in %q", src)
			require.Equal(t, Depth, v.What)
		})
	}
}

func TestScanAcceptsOrdinaryCode(t *testing.T) {
	lim := Limits{MaxDepth: 256, MaxChain: 1000}
	for _, src := range []string{
		strings.Repeat("a && b || c ?? d; ", 100),
		"const ok = " + strings.Repeat("x.a && ", 40) + "x.b",
		strings.Repeat("if (a) { b() } else ", 200) + "{}",
		"const data = [" + strings.Repeat("1, -2, 'three', ", 2000) + "];",
		"for (const m of /(a)|(b)|(c)/g.exec(s)) n++",
		"const r = xs.map(x => x * 2 + 1).filter(x => x > 3).reduce((a, b) => a + b, 0)",
		strings.Repeat("f(a + b, function () { return c * d; }, ", 100) + "1" + strings.Repeat(")", 100),
		"if (a + b > c) {" + strings.Repeat(" x = y + z * 2;", 500) + " }",
		"function* g() { yield /x+/.source }",
		"async function f() { return await /y/.test(s) }",
	} {
		_, err := Scan(src, lim)
		require.NoError(t, err)
	}
}

func TestScanAwait(t *testing.T) {
	for src, want := range map[string]bool{
		"await x":                          true,
		"const a = await f()":              true,
		"'await'":                          false,
		"// await\n1":                      false,
		"obj.await":                        false,
		"async function f() { await g() }": true,
		"awaited + 1":                      false,
	} {
		rep, err := Scan(src, Limits{})
		require.NoError(t, err)
		require.Equal(t, want, rep.Await, src)
	}
}

func FuzzScan(f *testing.F) {
	for _, s := range []string{"f([{a:`${1}`}])", "/[(]/.test(x)", "if(a)/x/g.exec(b)", "'\\\n(' + (1)"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		rep, err := Scan(src, Limits{MaxDepth: 64, MaxChain: 100})
		opens := strings.Count(src, "(") + strings.Count(src, "[") + strings.Count(src, "{")
		require.LessOrEqual(t, rep.MaxDepth, opens)
		if err == nil {
			require.LessOrEqual(t, rep.MaxDepth, 64)
		}
	})
}
