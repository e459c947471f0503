package jsrt

import (
	"regexp/syntax"
	"strings"

	"github.com/dop251/goja/parser"
)

// regexpCost estimates the size of the program Go's regexp compiles a
// JavaScript regexp literal to, in instructions, the way goja compiles it:
// goja turns the pattern into RE2 syntax with its parser's TransformRegExp
// and compiles that with Go's regexp, which repeats a counted repeat's body
// (a{1000} is 1,000 instructions). Patterns that RE2 cannot express go to
// regexp2, which does not expand repeats, and cost their length. A
// character class costs its ranges.
func regexpCost(pattern, flags string) float64 {
	re2, err := parser.TransformRegExp(pattern, strings.Contains(flags, "s"), strings.Contains(flags, "u"))
	if err != nil {
		return float64(len(pattern))
	}
	var mode strings.Builder // the flags goja wraps the pattern in
	for _, f := range []string{"m", "s", "i"} {
		if strings.Contains(flags, f) {
			mode.WriteString(f)
		}
	}
	if mode.Len() > 0 {
		re2 = "(?" + mode.String() + ":" + re2 + ")"
	}
	re, err := syntax.Parse(re2, syntax.Perl)
	if err != nil {
		return float64(len(pattern)) // a syntax error goja reports
	}
	return reCost(re)
}

// reCost bounds the instructions syntax.Compile emits for re, without
// expanding it.
func reCost(re *syntax.Regexp) float64 {
	switch re.Op {
	case syntax.OpLiteral:
		return float64(len(re.Rune))
	case syntax.OpRepeat:
		n := re.Max
		if n < 0 {
			n = re.Min + 1 // x{n,} is n copies and a star
		}
		return reCost(re.Sub[0])*float64(max(n, 1)) + 1
	case syntax.OpCapture, syntax.OpStar, syntax.OpPlus, syntax.OpQuest:
		return reCost(re.Sub[0]) + 2
	case syntax.OpCharClass:
		// One instruction, but Go's one-pass matcher, which it builds for
		// anchored programs under 1,000 instructions, copies the class's
		// ranges for every instruction that repeats it.
		return 1 + float64(len(re.Rune))
	case syntax.OpConcat, syntax.OpAlternate:
		c := float64(len(re.Sub))
		for _, sub := range re.Sub {
			c += reCost(sub)
		}
		return c
	}
	return 1
}
