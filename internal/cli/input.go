package cli

import (
	"fmt"
	"io"
	"strings"
)

// maxStdin bounds the question read from stdin.
const maxStdin = 1 << 20

// ReadInput returns the question: --input, else the positional arguments
// joined by spaces, else stdin when it is not a terminal (trimmed), else
// the default question.
func ReadInput(f *Flags, sio Stdio, def string) (string, error) {
	if s := strings.TrimSpace(f.Input); s != "" {
		return s, nil
	}
	if len(f.Args) > 0 {
		return strings.TrimSpace(strings.Join(f.Args, " ")), nil
	}
	if !sio.InTerminal && sio.In != nil {
		b, err := io.ReadAll(io.LimitReader(sio.In, maxStdin+1))
		if err != nil {
			return "", fmt.Errorf("reading the question from stdin: %w", err)
		}
		if len(b) > maxStdin {
			return "", fmt.Errorf("the question on stdin is longer than %d bytes", maxStdin)
		}
		if s := strings.TrimSpace(string(b)); s != "" {
			return s, nil
		}
	}
	if def == "" {
		return "", fmt.Errorf("no question: pass it with --input, as an argument, or on stdin")
	}
	return def, nil
}
