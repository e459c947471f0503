package cli

import (
	"io"
	"os"

	"github.com/loomwork/loom/internal/editdist"
)

// Nearest returns the candidate closest to name (by edit distance, at most
// two edits, or a prefix), or "" when none is close.
func Nearest(name string, candidates []string) string {
	best, bestD := "", 3
	for _, c := range candidates {
		d := editdist.Distance(name, c)
		if len(name) >= 2 && len(c) > len(name) && c[:len(name)] == name {
			d = min(d, 1)
		}
		if d < bestD {
			best, bestD = c, d
		}
	}
	return best
}

// IsTerminal reports whether w is a terminal (a character device): where
// a progress bar or a prompt belongs. A pipe or a file is not.
func IsTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}
