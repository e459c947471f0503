package main

import (
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/loomwork/loom/evals"
)

// isTerminal reports whether w is a terminal (a character device), where a
// progress bar belongs; a pipe or a file gets none.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

// progressBar draws one line that each sample redraws.
type progressBar struct {
	w      io.Writer
	passed int
	drawn  bool
}

func newProgressBar(w io.Writer) *progressBar { return &progressBar{w: w} }

const barWidth = 30

// update redraws the bar after a sample; evals calls it one call at a time.
func (b *progressBar) update(done, total int, problem string, s evals.Sample) {
	if s.Class == evals.Passed {
		b.passed++
	}
	fill := barWidth * done / max(total, 1)
	fmt.Fprintf(b.w, "\r[%s%s] %d/%d  passed %d  %-24.24s", strings.Repeat("#", fill), strings.Repeat(".", barWidth-fill), done, total, b.passed, problem)
	b.drawn = true
}

// finish ends the bar's line.
func (b *progressBar) finish() {
	if b.drawn {
		fmt.Fprintln(b.w)
	}
}
