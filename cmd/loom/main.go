// Command loom is loom's command line: it runs agents declared in loom/v1
// YAML files (package spec); its observe subcommand serves the trace
// viewer over the trace database that programs using loom record to; its
// mcp subcommand serves a file's agents, or the Coder→Sandbox workflow, as
// MCP tools; its eval subcommand scores a model on a benchmark.
//
//	loom run FILE [-i INPUT | --chat]
//	loom resume ID --approve|--deny|--answer JSON|--continue
//	loom resume --list
//	loom validate FILE
//	loom trust FILE
//	loom schema
//	loom serve FILE [--port 7894]
//	loom observe [--port 7893] [--db PATH]
//	loom mcp serve [FILE] [--http 127.0.0.1:PORT] [--model provider:model]
//	loom eval [humaneval|loom-tasks] [flags] | loom eval diff A B
//	loom --version
//	loom help [command]
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime"

	"github.com/loomwork/loom/evals"
	"github.com/loomwork/loom/internal/buildinfo"
	"github.com/loomwork/loom/internal/cli"
	"github.com/loomwork/loom/model"
	"github.com/loomwork/loom/observe/store"
	"github.com/loomwork/loom/observe/viewer"
	"github.com/loomwork/loom/sandbox"
)

func main() {
	sandbox.ServeWorkerIfChild() // this binary is also the isolated sandbox's worker
	ctx, stop := cli.NotifyContext(context.Background())
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

const usage = `loom — build agents that write and run code.

Usage:
  loom run FILE [-i INPUT | --chat]     run a declared agent
  loom resume ID --approve|--deny|--answer JSON|--continue
                                        continue a run that waits for an answer
  loom resume --list                    list the runs that wait for answers
  loom validate FILE                    check a file; runs nothing
  loom trust FILE                       allow the commands a file starts
  loom schema                           print the JSON Schema of loom files
  loom serve FILE [--port N]            the playground: edit, run, approve, watch
  loom observe [--port N] [--db PATH]   serve the trace viewer on 127.0.0.1
  loom mcp serve [FILE] [--http ADDR]   serve a file's agents (or code_execution) as MCP tools
  loom eval [humaneval|loom-tasks]      score a model on a benchmark (loom eval --help)
  loom --version                        print the version
  loom help [command]                   show help

Run 'loom help COMMAND' (or 'loom COMMAND --help') for a command's options.

` + cli.DotEnvOrder + `

` + cli.ExitTable

const observeUsage = `Usage: loom observe [--port N] [--db PATH]

Serves the trace viewer at http://127.0.0.1:PORT/: the runs recorded to the
trace database, each with its span tree, model calls, tool calls and sandboxed
code. Programs record there when they use observe.Setup (the example CLIs do
by default). Stop it with Ctrl-C (exit status 130) or SIGTERM (143); see
'loom help' for every exit status.

Flags:
  --port N    port to listen on (default %d; 0 picks a free one)
  --db PATH   trace database (default $%s, else %s)
`

// run is the whole command: it returns the exit status.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return 2
	}
	switch args[0] {
	case "help", "-h", "-help", "--help":
		if len(args) == 1 {
			fmt.Fprint(stdout, usage)
			return exitOK
		}
		text, ok := commandHelp(args[1])
		if !ok {
			fmt.Fprintf(stderr, "loom help: unknown command %q%s: run 'loom help'\n", args[1], suggestion(args[1]))
			return exitInvalid
		}
		fmt.Fprint(stdout, text)
		return exitOK
	case "version", "-version", "--version":
		fmt.Fprintf(stdout, "loom %s (%s %s/%s)\n", buildinfo.Version(), runtime.Version(), runtime.GOOS, runtime.GOARCH)
		return exitOK
	case "observe":
		return runObserve(ctx, args[1:], stdout, stderr)
	case "run", "resume", "validate", "schema", "serve", "trust":
		return runSpec(ctx, args, stdout, stderr, stdinConsole())
	case "mcp":
		return runMCP(ctx, args[1:], stdout, stderr, model.Open)
	case "eval":
		return runEval(ctx, args[1:], stdout, stderr, model.Open)
	}
	fmt.Fprintf(stderr, "loom: unknown command %q%s: run 'loom help'\n", args[0], suggestion(args[0]))
	return exitInvalid
}

// commands are loom's commands, as 'loom help' lists them.
var commands = []string{"run", "resume", "validate", "trust", "schema", "serve", "observe", "mcp", "eval", "version", "help"}

// commandHelp returns the help of a command.
func commandHelp(cmd string) (string, bool) {
	if text, ok := specHelp(cmd); ok {
		return text, true
	}
	switch cmd {
	case "observe":
		return fmt.Sprintf(observeUsage, viewer.DefaultPort, store.PathEnv, defaultDB()), true
	case "mcp":
		return mcpUsage, true
	case "eval":
		return fmt.Sprintf(evalUsage, evals.DefaultConcurrency), true
	case "version":
		return "Usage: loom version (or loom --version)\n\nPrints loom's version, the Go version and the platform.\n", true
	case "help":
		return usage, true
	}
	return "", false
}

// suggestion is " (did you mean "X"?)" for the command nearest to name,
// or "".
func suggestion(name string) string {
	if n := cli.Nearest(name, commands); n != "" {
		return fmt.Sprintf(" (did you mean %q?)", n)
	}
	return ""
}

func runObserve(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("loom observe", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	port := fs.Int("port", viewer.DefaultPort, "port to listen on")
	db := fs.String("db", "", "trace database")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprintf(stdout, observeUsage, viewer.DefaultPort, store.PathEnv, defaultDB())
			return 0
		}
		fmt.Fprintf(stderr, "loom observe: %v: run 'loom help observe'\n", err)
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "loom observe: unexpected argument %q: run 'loom help observe'\n", fs.Arg(0))
		return 2
	}
	if *port < 0 || *port > 65535 {
		fmt.Fprintf(stderr, "loom observe: --port %d is out of range: use 1-65535, or 0 for a free port\n", *port)
		return 2
	}
	p := *port
	if p == 0 {
		p = -1 // viewer.Serve: negative picks a free port
	}
	err := viewer.Serve(ctx, viewer.Config{Port: p, DBPath: *db, Out: stdout})
	if code, msg, ok := interrupted(ctx, "observe", "the viewer was shut down and the database closed"); ok {
		fmt.Fprint(stderr, msg)
		return code
	}
	if err != nil {
		fmt.Fprintf(stderr, "loom observe: %v\n", err)
		return 1
	}
	return 0
}

func defaultDB() string {
	p, err := store.DefaultPath()
	if err != nil {
		return "a file under the user cache directory"
	}
	return p
}
