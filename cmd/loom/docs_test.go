package main

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// flagCommands are the commands that read flags, each as its arguments
// and its help topic.
var flagCommands = []struct {
	args  []string
	topic string
}{
	{[]string{"run"}, "run"},
	{[]string{"resume"}, "resume"},
	{[]string{"validate"}, "validate"},
	{[]string{"trust"}, "trust"},
	{[]string{"schema"}, "schema"},
	{[]string{"serve"}, "serve"},
	{[]string{"observe"}, "observe"},
	{[]string{"eval"}, "eval"},
	{[]string{"mcp", "serve"}, "mcp"},
}

// flagRE finds a flag, as --db or -i, in text.
var flagRE = regexp.MustCompile(`(?:^|[\s,(\[|=])(--?[a-z][a-z0-9-]*)`)

// listedFlags returns the flags a command's help lists: those of its usage
// line and of the lines of its flag list, which start, indented by two
// spaces, with one or more flags ("  -i, --input TEXT", "  --log-level,
// --timeout   as for loom run").
func listedFlags(help string) []string {
	var names []string
	lines := strings.Split(help, "\n")
	for i, l := range lines {
		switch {
		case i == 0 && strings.HasPrefix(l, "Usage:"):
			for _, m := range flagRE.FindAllStringSubmatch(l, -1) {
				names = append(names, strings.TrimLeft(m[1], "-"))
			}
		case strings.HasPrefix(l, "  -"):
			for _, f := range strings.Split(strings.Fields(strings.ReplaceAll(l, ", ", ","))[0], ",") {
				names = append(names, strings.TrimLeft(f, "-"))
			}
		}
	}
	slices.Sort(names)
	return slices.Compact(names)
}

// defined reports whether the command accepts the flag: given --name=x
// and then a flag no command has, it complains about the latter (or about
// x), never about the name. Nothing runs: every call is a bad command line.
func defined(t *testing.T, args []string, name string) bool {
	t.Helper()
	var out, errs bytes.Buffer
	code := run(t.Context(), append(slices.Clone(args), "--"+name+"=x", "--zz-no-such-flag"), &out, &errs)
	require.Equal(t, exitInvalid, code, "loom %s --%s=x --zz-no-such-flag is a bad command line: %s", strings.Join(args, " "), name, errs.String())
	msg := errs.String()
	if strings.Contains(msg, "not defined: -"+name+":") || strings.Contains(msg, `unexpected argument "--`+name+`=x"`) {
		return false
	}
	require.Regexp(t, `not defined: -zz-no-such-flag|invalid|parse error`, msg, "an unexpected complaint about --%s", name)
	return true
}

// docs returns the texts a user reads about loom's commands: the READMEs,
// the spec package's doc and every command's help.
func docs(t *testing.T) map[string]string {
	t.Helper()
	files, err := filepath.Glob("../../examples/*/README.md")
	require.NoError(t, err)
	files = append(files, "../../README.md", "../../spec/doc.go")
	texts := map[string]string{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		require.NoError(t, err)
		texts[strings.TrimPrefix(f, "../../")] = string(b)
	}
	for _, c := range append(slices.Clone(commands), "trust") {
		help, ok := commandHelp(c)
		require.True(t, ok, c)
		texts["loom help "+c] = help
	}
	return texts
}

// commandMention finds "loom CMD ..." up to the end of the line, a
// backquote or a comment: the flags a doc gives the command.
var commandMention = regexp.MustCompile("loom (run|resume|validate|trust|schema|serve|observe|eval|mcp serve)\\b([^`#\\n]*)")

// TestHelpListsEveryFlag: one grammar for loom's command lines. Each
// command's help lists exactly the flags the command accepts (no flag
// listed that it refuses, none it accepts unlisted), probed over every
// flag any command lists; and every "loom CMD --flag" in the READMEs, the
// spec doc and the help texts names a flag CMD accepts.
func TestHelpListsEveryFlag(t *testing.T) {
	listed := map[string][]string{}
	vocabulary := map[string]bool{}
	for _, c := range flagCommands {
		help, ok := commandHelp(c.topic)
		require.True(t, ok)
		listed[c.topic] = listedFlags(help)
		for _, f := range listed[c.topic] {
			vocabulary[f] = true
		}
	}
	require.Contains(t, listed["run"], "input", "the parser finds the flag lists")
	require.Contains(t, listed["mcp"], "trusted-code")
	require.False(t, defined(t, []string{"run"}, "no-such-flag"), "the probe tells a refused flag")
	require.True(t, defined(t, []string{"run"}, "db"), "the probe tells an accepted flag")
	for _, texts := range docs(t) {
		for _, m := range commandMention.FindAllStringSubmatch(texts, -1) {
			for _, f := range flagRE.FindAllStringSubmatch(m[2], -1) {
				vocabulary[strings.TrimLeft(f[1], "-")] = true
			}
		}
	}
	delete(vocabulary, "h")
	delete(vocabulary, "help")
	names := make([]string, 0, len(vocabulary))
	for f := range vocabulary {
		names = append(names, f)
	}
	sort.Strings(names)
	for _, c := range flagCommands {
		t.Run(c.topic, func(t *testing.T) {
			for _, f := range names {
				if defined(t, c.args, f) {
					require.Contains(t, listed[c.topic], f, "loom %s accepts --%s but its help does not list it", strings.Join(c.args, " "), f)
				} else {
					require.NotContains(t, listed[c.topic], f, "loom %s's help lists --%s, which it refuses", strings.Join(c.args, " "), f)
				}
			}
		})
	}
	topic := map[string]string{"mcp serve": "mcp"}
	for name, text := range docs(t) {
		for _, m := range commandMention.FindAllStringSubmatch(text, -1) {
			cmd := m[1]
			if topic[cmd] != "" {
				cmd = topic[cmd]
			}
			for _, f := range flagRE.FindAllStringSubmatch(m[2], -1) {
				flag := strings.TrimLeft(f[1], "-")
				if flag == "h" || flag == "help" {
					continue
				}
				require.Contains(t, listed[cmd], flag, "%s: %q gives loom %s a flag it does not have", name, m[0], m[1])
			}
		}
	}
}

// transcript finds, in a README's code blocks, a "$ loom validate …" line
// and the output shown under it, up to a blank line, the next command or
// the block's end.
var transcript = regexp.MustCompile("(?m)^\\$ loom (validate [^\\n]*)\\n((?:[^$`\\n][^\\n]*\\n)*)")

// TestREADMEValidateTranscripts: what the READMEs show loom validate
// printing is what it prints, run from the repository's root as shown.
func TestREADMEValidateTranscripts(t *testing.T) {
	files, err := filepath.Glob("../../examples/*/README.md")
	require.NoError(t, err)
	type shown struct{ file, args, out string }
	var all []shown
	for _, f := range append(files, "../../README.md") {
		b, err := os.ReadFile(f)
		require.NoError(t, err)
		for _, m := range transcript.FindAllStringSubmatch(string(b), -1) {
			all = append(all, shown{strings.TrimPrefix(f, "../../"), m[1], m[2]})
		}
	}
	require.NotEmpty(t, all)
	t.Setenv("MODEL", "") // the files' own models, as a new user's shell has
	t.Chdir("../..")
	for _, s := range all {
		var out, errs bytes.Buffer
		require.Equal(t, exitOK, run(t.Context(), strings.Fields(s.args), &out, &errs), "%s: loom %s: %s", s.file, s.args, errs.String())
		require.Equal(t, s.out, out.String(), "%s shows another output of loom %s", s.file, s.args)
	}
}
