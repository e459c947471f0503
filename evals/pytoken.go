package evals

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// tokKind is the kind of a Python token the translator reads.
type tokKind int

const (
	tokEOF tokKind = iota
	tokName
	tokNumber
	tokString
	tokOp
)

// token is one Python token. For tokString, text is the decoded value; for
// tokNumber, the literal as written (underscores removed).
type token struct {
	kind tokKind
	text string
	pos  int
}

// pyOps are Python's operators and delimiters the translator knows, longest
// first so that "**" wins over "*".
var pyOps = []string{
	"**", "//", "==", "!=", "<=", ">=", "->",
	"+", "-", "*", "/", "%", "<", ">", "(", ")", "[", "]", "{", "}", ",", ":", ".", "=",
}

// tokenize splits one logical line of Python into tokens.
func tokenize(src string) ([]token, error) {
	var toks []token
	i := 0
	for i < len(src) {
		c := src[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\\':
			i++
		case c == '#':
			for i < len(src) && src[i] != '\n' {
				i++
			}
		case isStringStart(src[i:]):
			s, n, err := readString(src[i:])
			if err != nil {
				return nil, fmt.Errorf("at byte %d: %w", i, err)
			}
			toks = append(toks, token{tokString, s, i})
			i += n
		case c >= '0' && c <= '9' || c == '.' && i+1 < len(src) && src[i+1] >= '0' && src[i+1] <= '9':
			j := i
			for j < len(src) && (isAlnum(src[j]) || src[j] == '.' || src[j] == '_' ||
				(src[j] == '+' || src[j] == '-') && (src[j-1] == 'e' || src[j-1] == 'E') && !strings.HasPrefix(strings.ToLower(src[i:j]), "0x")) {
				j++
			}
			toks = append(toks, token{tokNumber, strings.ReplaceAll(src[i:j], "_", ""), i})
			i = j
		case c == '_' || c >= 0x80 || unicode.IsLetter(rune(c)):
			j := i
			for j < len(src) {
				r, n := utf8.DecodeRuneInString(src[j:])
				if r != '_' && !unicode.IsLetter(r) && !unicode.IsDigit(r) {
					break
				}
				j += n
			}
			if j == i {
				return nil, fmt.Errorf("at byte %d: unexpected character %q", i, src[i:i+1])
			}
			toks = append(toks, token{tokName, src[i:j], i})
			i = j
		default:
			op := ""
			for _, o := range pyOps {
				if strings.HasPrefix(src[i:], o) {
					op = o
					break
				}
			}
			if op == "" {
				return nil, fmt.Errorf("at byte %d: unexpected character %q", i, src[i:i+1])
			}
			toks = append(toks, token{tokOp, op, i})
			i += len(op)
		}
	}
	return append(toks, token{tokEOF, "", len(src)}), nil
}

func isAlnum(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

// isStringStart reports whether s starts a string literal, with an optional
// r, b, u or f prefix.
func isStringStart(s string) bool {
	j := 0
	for j < len(s) && j < 2 && strings.ContainsRune("rRbBuUfF", rune(s[j])) {
		j++
	}
	return j < len(s) && (s[j] == '\'' || s[j] == '"')
}

// readString decodes the string literal at the start of s and returns its
// value and length.
func readString(s string) (string, int, error) {
	i, raw := 0, false
	for s[i] != '\'' && s[i] != '"' {
		if s[i] == 'r' || s[i] == 'R' {
			raw = true
		}
		if s[i] == 'f' || s[i] == 'F' {
			return "", 0, fmt.Errorf("f-strings are not supported")
		}
		i++
	}
	q := s[i : i+1]
	if strings.HasPrefix(s[i:], q+q+q) {
		q = q + q + q
	}
	i += len(q)
	var b strings.Builder
	for {
		if i >= len(s) {
			return "", 0, fmt.Errorf("unterminated string literal")
		}
		if strings.HasPrefix(s[i:], q) {
			return b.String(), i + len(q), nil
		}
		c := s[i]
		if c == '\n' && len(q) == 1 {
			return "", 0, fmt.Errorf("unterminated string literal")
		}
		if c != '\\' || raw {
			if c == '\\' && raw && i+1 < len(s) {
				b.WriteString(s[i : i+2])
				i += 2
				continue
			}
			b.WriteByte(c)
			i++
			continue
		}
		if i+1 >= len(s) {
			return "", 0, fmt.Errorf("unterminated string literal")
		}
		e := s[i+1]
		i += 2
		switch e {
		case '\n':
		case '\\', '\'', '"':
			b.WriteByte(e)
		case 'n':
			b.WriteByte('\n')
		case 't':
			b.WriteByte('\t')
		case 'r':
			b.WriteByte('\r')
		case '0':
			b.WriteByte(0)
		case 'a':
			b.WriteByte(7)
		case 'b':
			b.WriteByte(8)
		case 'f':
			b.WriteByte(12)
		case 'v':
			b.WriteByte(11)
		case 'x', 'u', 'U':
			n := map[byte]int{'x': 2, 'u': 4, 'U': 8}[e]
			if i+n > len(s) {
				return "", 0, fmt.Errorf("short \\%c escape", e)
			}
			v, err := strconv.ParseUint(s[i:i+n], 16, 32)
			if err != nil {
				return "", 0, fmt.Errorf("bad \\%c escape %q", e, s[i:i+n])
			}
			b.WriteRune(rune(v))
			i += n
		default:
			b.WriteByte('\\')
			b.WriteByte(e)
		}
	}
}
