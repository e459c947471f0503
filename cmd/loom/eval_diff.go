package main

import (
	"fmt"
	"io"

	"github.com/loomwork/loom/evals"
)

const evalDiffUsage = `Usage: loom eval diff A.json B.json

Compares two reports of 'loom eval --out' problem by problem: the problems
fixed, better, worse or regressed from A to B, and the change of pass@k.
Exits 0 when no problem passes less often in B, 1 when some do, 2 when a
report cannot be read.
`

func runEvalDiff(args []string, stdout, stderr io.Writer) int {
	if len(args) == 1 && (args[0] == "-h" || args[0] == "--help" || args[0] == "help") {
		fmt.Fprint(stdout, evalDiffUsage)
		return 0
	}
	if len(args) != 2 {
		fmt.Fprint(stderr, "loom eval diff: give two reports, A and B\n"+evalDiffUsage)
		return 2
	}
	a, err := evals.ReadReport(args[0])
	if err != nil {
		fmt.Fprintf(stderr, "loom eval diff: %v\n", err)
		return 2
	}
	b, err := evals.ReadReport(args[1])
	if err != nil {
		fmt.Fprintf(stderr, "loom eval diff: %v\n", err)
		return 2
	}
	if a.Dataset != b.Dataset {
		fmt.Fprintf(stderr, "loom eval diff: warning: the reports are of different data sets (%s, %s)\n", a.Dataset, b.Dataset)
	}
	changes := evals.Diff(a, b)
	if err := evals.WriteDiff(stdout, a, b, changes); err != nil {
		fmt.Fprintf(stderr, "loom eval diff: %v\n", err)
		return 2
	}
	if evals.Regressed(changes) {
		return 1
	}
	return 0
}
