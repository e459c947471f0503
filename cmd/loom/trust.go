package main

import (
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/loomwork/loom/internal/trust"
	"github.com/loomwork/loom/spec"
)

const trustUsage = `Usage: loom trust FILE [--root DIR]

Shows the commands FILE starts and the URLs it reaches when it runs (its
mcp entries' servers) and records that you trust them, as direnv's allow
does. loom run, resume, serve and mcp serve refuse to start a file's
commands until you do (at a terminal, loom run asks instead).

The grant is the SHA-256 of the file's absolute path and of the list of
its commands, their arguments, URLs, the headers sent to them and the
content of the project files a command names (a script: ./server.sh):
changing any of them revokes it; editing anything else keeps it. Grants are kept in
loom/trust under the user's config directory ($XDG_CONFIG_HOME, else
~/.config), a file only you can read and write.

Exit status: 0 when recorded (or when the file starts nothing), 2 on an
invalid file or a bad command line.
`

func runTrust(args []string, stdout, stderr io.Writer) int {
	cmd := newCommand("loom trust", "trust", trustUsage, stdout, stderr)
	var rs runSettings
	cmd.fs.StringVar(&rs.root, "root", "", "the folder the file's paths may reach")
	pos, status, quit := cmd.parse(args)
	switch {
	case quit:
		return status
	case len(pos) != 1:
		fmt.Fprint(stderr, "loom trust: give one file: loom trust FILE\n")
		return exitInvalid
	}
	store, err := trust.Open()
	if err != nil {
		fmt.Fprintf(stderr, "loom trust: %v\n", err)
		return exitFailed
	}
	path, err := projectArg(pos[0])
	if err != nil {
		fmt.Fprintln(stderr, err)
		return exitInvalid
	}
	d, err := checkFile(path, rs.options(os.Getenv, stderr))
	if err != nil {
		fmt.Fprintln(stderr, err)
		return exitInvalid
	}
	reaches := reachLines(d)
	if len(reaches) == 0 {
		fmt.Fprintf(stdout, "%s starts no command and reaches no URL beside its models: nothing to trust\n", path)
		return exitOK
	}
	fmt.Fprintf(stdout, "%s starts or reaches:\n%s", path, indentLines(reaches))
	if err := store.Allow(trustPath(path), reaches); err != nil {
		fmt.Fprintf(stderr, "loom trust: %v\n", err)
		return exitFailed
	}
	fmt.Fprintf(stdout, "trusted: loom may start them for this file until one of them changes (%s)\n", store.Path())
	return exitOK
}

// reachLines are the canonical lines of what d starts and reaches, with
// the digest of each project file its commands name: what a grant covers.
func reachLines(d *spec.Doc) []string { return d.TrustLines() }

// trustPath is the path a file's grant is recorded for: the file, or the
// aigne.yaml of an AIGNE folder.
func trustPath(path string) string {
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		return strings.TrimSuffix(path, string(os.PathSeparator)) + string(os.PathSeparator) + spec.AIGNEProject
	}
	return path
}

func indentLines(lines []string) string {
	var b strings.Builder
	for _, l := range lines {
		b.WriteString("  ")
		b.WriteString(l)
		b.WriteByte('\n')
	}
	return b.String()
}

// errUntrusted is the refusal of a file whose commands are not trusted.
type errUntrusted struct {
	path    string
	reaches []string
}

func (e errUntrusted) Error() string {
	return fmt.Sprintf("%s starts commands or reaches URLs you have not trusted:\n%sread them, then run 'loom trust %s' to allow them", e.path, indentLines(e.reaches), e.path)
}

func (e errUntrusted) Unwrap() error { return trust.ErrUntrusted }

// gate lets the file's commands start when the user trusted them, or,
// at a terminal, when the user says so now (and records it). Without a
// terminal it refuses, naming the commands and 'loom trust FILE'.
func gate(store *trust.Store, path string, d *spec.Doc, con *console, stderr io.Writer) error {
	reaches := reachLines(d)
	ok, err := store.Trusted(trustPath(path), reaches)
	if err != nil || ok {
		return err
	}
	refuse := errUntrusted{path: path, reaches: reaches}
	if con == nil || !con.terminal {
		return refuse
	}
	fmt.Fprintf(stderr, "%s starts or reaches, when it runs:\n%sTrust them and go on? [y/N] ", path, indentLines(reaches))
	answer, err := con.line()
	if err != nil || !strings.EqualFold(strings.TrimSpace(answer), "y") && !strings.EqualFold(strings.TrimSpace(answer), "yes") {
		return refuse
	}
	return store.Allow(trustPath(path), reaches)
}
