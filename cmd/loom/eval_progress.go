package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/loomwork/loom/evals"
)

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
