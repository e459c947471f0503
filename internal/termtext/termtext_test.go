package termtext

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestSafe(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"plain text is kept", "15! = 1307674368000\n\tdone", "15! = 1307674368000\n\tdone"},
		{"non-ASCII text is kept", "café ✓ 日本", "café ✓ 日本"},
		{"ESC of a colour", "a\x1b[31mred", `a\x1b[31mred`},
		{"clear screen", "\x1b[2J\x1b[H", `\x1b[2J\x1b[H`},
		{"window title by OSC and BEL", "\x1b]0;pwned\x07", `\x1b]0;pwned\x07`},
		{"clipboard write by OSC 52", "\x1b]52;c;cm0gLXJmIH4=\x1b\\", `\x1b]52;c;cm0gLXJmIH4=\x1b\`},
		{"a lone carriage return overwrites the line", "safe\rEVIL", `safe\x0dEVIL`},
		{"CRLF is a line end", "one\r\ntwo", "one\r\ntwo"},
		{"backspace and DEL", "ab\b\x7f", `ab\x08\x7f`},
		{"C1 CSI", "x\u009b31m", `x\x9b31m`},
		{"bidi override", "abc\u202edcba", `abc\u202edcba`},
		{"bidi isolate", "\u2066x\u2069", `\u2066x\u2069`},
		{"bidi marks", "a\u200fb\u061cc", `a\u200fb\u061cc`},
		{"other characters after the same lead bytes are kept", "\u00e9\u00a0\u2013\u2713\u0627", "\u00e9\u00a0\u2013\u2713\u0627"},
		{"empty", "", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			require.Equal(t, tc.want, Safe(tc.in))
		})
	}
}

// BenchmarkSafe measures a streamed answer's delta, plain (the common
// case: no copy) and with controls to escape.
func BenchmarkSafe(b *testing.B) {
	for _, bc := range []struct{ name, text string }{
		{"plain", "The factorial of 15 is 1307674368000, computed by the snippet above. "},
		{"escapes", "The factorial \x1b[31mof 15\x1b[0m is 1307674368000\x07, computed by the snippet above. "},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				_ = Safe(bc.text)
			}
		})
	}
}
