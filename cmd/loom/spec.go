package main

import (
	"bufio"
	"context"
	"io"
	"os"

	"github.com/chzyer/readline"
)

// runSpec runs the commands over loom/v1 files: run, resume, validate and
// schema.
func runSpec(ctx context.Context, args []string, stdout, stderr io.Writer, con console) int {
	switch args[0] {
	case "run":
		return runRun(ctx, args[1:], stdout, stderr, con)
	case "resume":
		return runResume(ctx, args[1:], stdout, stderr, con)
	case "serve":
		return runServe(ctx, args[1:], stdout, stderr, con)
	case "validate":
		return runValidate(args[1:], stdout, stderr)
	case "trust":
		return runTrust(args[1:], stdout, stderr)
	default:
		return runSchema(args[1:], stdout, stderr)
	}
}

// specHelp returns the usage of a spec command.
func specHelp(cmd string) (string, bool) {
	text, ok := map[string]string{"run": runUsage, "resume": resumeUsage, "validate": validateUsage, "serve": serveUsage, "schema": schemaUsage, "trust": trustUsage}[cmd]
	return text, ok
}

// stdinConsole is the process's stdin, as where answers are typed.
func stdinConsole() console {
	return console{in: bufio.NewReader(os.Stdin), terminal: readline.IsTerminal(int(os.Stdin.Fd())), getenv: os.Getenv}
}
