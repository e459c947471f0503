// Package termtext makes text from a model or from sandboxed code safe to
// show on a terminal.
package termtext

import (
	"strings"
	"unicode/utf8"
)

// Safe returns s with the characters that drive a terminal
// rather than show on it written out as visible escapes ("\x1b",
// "\u202e"): the C0 controls but newline and tab (a carriage return only
// when a newline does not follow it), DEL, the C1 controls and the
// Unicode bidirectional controls. Text that a model or sandboxed code
// wrote goes through it before it reaches the user's terminal, so that it
// cannot clear the screen, hide or recolour text, set the window title,
// write the clipboard (OSC 52) or reorder what the user reads.
func Safe(s string) string {
	if !needsEscape(s) {
		return s
	}
	const hex = "0123456789abcdef"
	var b strings.Builder
	b.Grow(len(s) + 16)
	for i, r := range s {
		switch {
		case r == '\r' && strings.HasPrefix(s[i+1:], "\n"):
			b.WriteRune(r)
		case unsafeRune(r) && r < 0x100:
			b.WriteString(`\x`)
			b.WriteByte(hex[r>>4])
			b.WriteByte(hex[r&0xf])
		case unsafeRune(r):
			b.WriteString(`\u`)
			for shift := 12; shift >= 0; shift -= 4 {
				b.WriteByte(hex[(r>>shift)&0xf])
			}
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// needsEscape reports whether s holds a rune Safe rewrites. It looks at
// bytes, decoding a rune only at the lead bytes of the unsafe ones above
// ASCII (C1 controls start with 0xc2, the Arabic letter mark with 0xd8,
// the other bidirectional controls with 0xe2).
func needsEscape(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c < 0x20 || c == 0x7f:
			if c != '\n' && c != '\t' {
				return true
			}
		case c == 0xc2 || c == 0xd8 || c == 0xe2:
			if r, _ := utf8.DecodeRuneInString(s[i:]); unsafeRune(r) {
				return true
			}
		}
	}
	return false
}

// unsafeRune reports whether r drives a terminal or reorders text.
func unsafeRune(r rune) bool {
	switch {
	case r == '\n' || r == '\t':
		return false
	case r < 0x20 || r == 0x7f: // C0 and DEL: ESC, BEL, backspace, carriage return
		return true
	case r >= 0x80 && r <= 0x9f: // C1: CSI, OSC and the rest in one character
		return true
	case r == 0x061c || r == 0x200e || r == 0x200f: // the bidirectional marks
		return true
	case r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069: // bidirectional embeddings, overrides and isolates
		return true
	}
	return false
}
