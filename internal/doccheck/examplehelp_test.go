package doccheck

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/loomwork/loom/internal/cli"
	"github.com/loomwork/loom/internal/testkit"
)

// helpFlagRE finds the flags a --help lists: lines that start, indented by
// two spaces, with a flag ("  --db FILE", "  -h, --help").
var helpFlagRE = regexp.MustCompile(`(?m)^  (--?[a-z][a-z0-9-]*)(?:, (--?[a-z][a-z0-9-]*))?`)

// docFlagRE finds a flag in a README's text.
var docFlagRE = regexp.MustCompile(`(?:^|[\s(\[|=])(--?[a-z][a-z0-9-]*)`)

// helpFlags returns the flags a --help text lists.
func helpFlags(help string) []string {
	var names []string
	for _, m := range helpFlagRE.FindAllStringSubmatch(help, -1) {
		for _, f := range m[1:] {
			if f != "" {
				names = append(names, f)
			}
		}
	}
	slices.Sort(names)
	return slices.Compact(names)
}

// readmeFlags returns the flags a README gives the program name: those in
// a code span that starts with a flag ("`--max-rounds 5`") and those after
// the program's name on a line that runs it ("go run ./examples/NAME
// --mcp …", "$ NAME ask …"), up to a backquote or a comment; not those
// inside a quoted argument ("--mcp \"npx -y server\"").
func readmeFlags(readme, name string) []string {
	var names []string
	quoted := regexp.MustCompile(`"[^"]*"|'[^']*'`)
	add := func(s string) {
		for _, m := range docFlagRE.FindAllStringSubmatch(quoted.ReplaceAllString(s, `""`), -1) {
			names = append(names, m[1])
		}
	}
	for _, m := range regexp.MustCompile("`(-[^`]*)`").FindAllStringSubmatch(readme, -1) {
		add(" " + m[1])
	}
	run := regexp.MustCompile(`(?:examples/|^|[\s|$` + "`" + `])` + regexp.QuoteMeta(name) + "\\b([^`#\\n]*)")
	for _, line := range strings.Split(readme, "\n") {
		for _, m := range run.FindAllStringSubmatch(line, -1) {
			add(m[1])
		}
	}
	slices.Sort(names)
	return slices.Compact(names)
}

// TestExampleHelpMatchesREADME: each example program's --help (on stdout,
// status 0) lists every flag its README gives it, and its README tells of
// every flag of its own (those beyond the flags every example takes).
func TestExampleHelpMatchesREADME(t *testing.T) {
	var common bytes.Buffer
	_, err := cli.Parse(&cli.App{Name: "example"}, []string{"--help"}, &common)
	require.Error(t, err, "--help ends the parse")
	shared := helpFlags(common.String())
	require.Contains(t, shared, "--model")
	require.Contains(t, shared, "-i")

	mains, err := filepath.Glob(filepath.Join(moduleRoot(t), "examples", "*", "main.go"))
	require.NoError(t, err)
	require.NotEmpty(t, mains)
	for _, mainFile := range mains {
		dir := filepath.Dir(mainFile)
		name := filepath.Base(dir)
		if name == "quickstart" {
			continue // the README's ten-line program takes no flags
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel() // each asks the go command for its binary
			readme, err := os.ReadFile(filepath.Join(dir, "README.md"))
			require.NoError(t, err, "every example has a README")
			bin, err := testkit.Binary(dir)
			require.NoError(t, err)
			ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
			defer cancel()
			cmd := exec.CommandContext(ctx, bin, "--help")
			cmd.Dir = t.TempDir()
			cmd.Env = []string{"HOME=" + cmd.Dir, "XDG_CONFIG_HOME=" + cmd.Dir, "XDG_CACHE_HOME=" + cmd.Dir, "PATH=" + os.Getenv("PATH")}
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			require.NoError(t, cmd.Run(), "%s --help exits 0; stderr: %s", name, stderr.String())
			listed := helpFlags(stdout.String())
			require.Contains(t, listed, "--help", "%s --help lists its flags on stdout:\n%s", name, stdout.String())
			documented := readmeFlags(string(readme), name)
			for _, f := range documented {
				require.Contains(t, listed, f, "examples/%s/README.md gives %s %s, which its --help does not list", name, name, f)
			}
			for _, f := range listed {
				if !slices.Contains(shared, f) {
					require.Contains(t, documented, f, "%s --help lists %s, which its README does not tell of", name, f)
				}
			}
		})
	}
}

// TestREADMEFlagsFinder: the finder sees flags in code spans and after the
// program's name, and not those of other programs on the line.
func TestREADMEFlagsFinder(t *testing.T) {
	readme := "Run `go run ./examples/demo --db x.db -i \"q\"` or `demo --chat`.\n" +
		"| sampling | `--temperature 0.2 --top-p 0.9` |\n" +
		"$ npx -y server && demo ask --model m # not --this\n" +
		"`--mcp \"npx -y server\"`\n"
	require.Equal(t, []string{"--chat", "--db", "--mcp", "--model", "--temperature", "--top-p", "-i"}, readmeFlags(readme, "demo"))
	require.Equal(t, []string{"--db", "--help", "-h", "-i"}, helpFlags("Flags:\n  --db FILE   x\n  -h, --help  help\n  -i TEXT  q\n    --not-a-row\n"))
}
