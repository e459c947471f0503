package doccheck

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/loomwork/loom/internal/cli"
)

// TestREADMEExitTable: the README's exit status table has the statuses
// every --help prints (cli.ExitTable), no more and no fewer.
func TestREADMEExitTable(t *testing.T) {
	readme, err := os.ReadFile(filepath.Join(moduleRoot(t), "README.md"))
	require.NoError(t, err)
	text := string(readme)
	start := strings.Index(text, "| status | meaning |")
	require.GreaterOrEqual(t, start, 0, "the README has the exit status table")
	var inREADME []string
	for _, line := range strings.Split(text[start:], "\n")[2:] {
		if !strings.HasPrefix(line, "| ") {
			break
		}
		cell := strings.TrimSpace(strings.SplitN(line[2:], "|", 2)[0])
		inREADME = append(inREADME, regexp.MustCompile(`\d+`).FindAllString(cell, -1)...)
	}
	var inHelp []string // "  0    an answer…" and "…(SIGINT); 143 by SIGTERM"
	for _, m := range regexp.MustCompile(`(?m)^  (\d+)\s|; (\d+) by`).FindAllStringSubmatch(cli.ExitTable, -1) {
		inHelp = append(inHelp, m[1]+m[2])
	}
	slices.Sort(inREADME)
	slices.Sort(inHelp)
	require.Equal(t, []string{"0", "1", "130", "143", "2", "3", "4", "5", "6", "7", "8", "9"}, inREADME)
	require.Equal(t, inREADME, inHelp, "README.md's exit table and cli.ExitTable list the same statuses")
}
