package jsrt

import (
	"errors"
	"fmt"
	"unicode/utf8"

	"github.com/loomwork/loom/sandbox/internal/jsscan"
)

// admit is the one check both executors make before any code runs: the
// size limit, valid UTF-8 and the nesting prescan. Isolated makes it in the
// parent too, so oversized or malformed code is refused the same way in
// process and never sent to a worker.
func Admit(code string, lim Limits) (jsscan.Report, error) {
	if len(code) > lim.SourceBytes {
		return jsscan.Report{}, &Error{Kind: KindCodeTooLarge, Limit: int64(lim.SourceBytes), Message: fmt.Sprintf(
			"The code is too large: %s, more than the %s limit. Send shorter code; compute data instead of writing it out.",
			FormatBytes(int64(len(code))), FormatBytes(int64(lim.SourceBytes)))}
	}
	if err := checkUTF8(code); err != nil {
		return jsscan.Report{}, err
	}
	rep, err := jsscan.Scan(code, jsscan.Limits{MaxDepth: lim.Nesting, MaxChain: maxOperatorChain})
	if err != nil {
		var v *jsscan.Violation
		if errors.As(err, &v) {
			return rep, nestingError(v)
		}
		return rep, err
	}
	return rep, nil
}

// checkUTF8 refuses code that is not valid UTF-8, naming where: a worker
// would otherwise receive it with U+FFFD in place of the bad bytes.
func checkUTF8(code string) error {
	if utf8.ValidString(code) {
		return nil
	}
	line, col := 1, 1
	for i := 0; i < len(code); {
		r, size := utf8.DecodeRuneInString(code[i:])
		if r == utf8.RuneError && size == 1 {
			e := &Error{Kind: KindSyntax, Line: line, Column: col}
			e.Message = fmt.Sprintf("SyntaxError at line %d, column %d: the code is not valid UTF-8 (byte 0x%02x at offset %d). Send the code as UTF-8 text.",
				line, col, code[i], i)
			return e
		}
		if r == '\n' {
			line, col = line+1, 1
		} else {
			col++
		}
		i += size
	}
	return nil
}
