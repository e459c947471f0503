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
		{"empty", "", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			require.Equal(t, tc.want, Safe(tc.in))
		})
	}
}
