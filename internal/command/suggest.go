package command

import (
	"io"
	"os"
)

// Nearest returns the candidate closest to name (by edit distance, at most
// two edits, or a prefix), or "" when none is close.
func Nearest(name string, candidates []string) string {
	best, bestD := "", 3
	for _, c := range candidates {
		d := distance(name, c)
		if len(name) >= 2 && len(c) > len(name) && c[:len(name)] == name {
			d = min(d, 1)
		}
		if d < bestD {
			best, bestD = c, d
		}
	}
	return best
}

// distance is the Levenshtein distance between a and b.
func distance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
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
