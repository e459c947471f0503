package main

import (
	"errors"
	"flag"
	"fmt"
	"io"

	"github.com/loomwork/loom/internal/cli"
)

// command is one subcommand's command line: its flags, its usage and how
// a bad one is reported.
type command struct {
	name   string // as "loom run"
	topic  string // of 'loom help TOPIC'
	usage  string
	fs     *flag.FlagSet
	stdout io.Writer
	stderr io.Writer
}

// newCommand starts the command line of 'loom topic' (name, as
// "loom mcp serve", when it is longer), whose --help prints usage.
func newCommand(name, topic, usage string, stdout, stderr io.Writer) *command {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	return &command{name: name, topic: topic, usage: usage, fs: fs, stdout: stdout, stderr: stderr}
}

// parse reads args, flags and positional arguments mixed, and returns the
// positional ones. On --help it prints the usage, on a bad flag it says
// so; then done is true and code is the exit status.
func (c *command) parse(args []string) (pos []string, code int, done bool) {
	pos, err := cli.ParseInterleaved(c.fs, args)
	switch {
	case errors.Is(err, flag.ErrHelp):
		fmt.Fprint(c.stdout, c.usage)
		return nil, exitOK, true
	case err != nil:
		return nil, c.usageErr("%v", err), true
	}
	return pos, 0, false
}

// usageErr reports a bad command line, pointing at its help, and returns
// the exit status of one.
func (c *command) usageErr(format string, a ...any) int {
	fmt.Fprintf(c.stderr, c.name+": "+format+": run 'loom help "+c.topic+"'\n", a...)
	return exitInvalid
}
