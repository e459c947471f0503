package main

import (
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/loomwork/loom/internal/cli"
	"github.com/loomwork/loom/internal/trust"
	"github.com/loomwork/loom/spec"
)

// Exit statuses of the spec commands.
const (
	exitOK      = cli.ExitOK      // the run answered; the file is valid
	exitFailed  = cli.ExitFailed  // the run failed
	exitInvalid = cli.ExitUsage   // a bad command line, an invalid file, a missing key
	exitWaiting = cli.ExitWaiting // the run waits for an answer: loom resume ID
)

const validateUsage = `Usage: loom validate FILE|AIGNE-FOLDER [--root DIR]

Checks a loom/v1 file and the files it names without running anything or
calling any model: unknown keys (with the nearest valid one), wrong types,
durations and ranges, missing files and files outside the file's folder,
unknown references and reference cycles, and what each agent's constructor
checks: the same check loom run, serve and mcp serve make before they start.
Every problem is listed, each as file:line:col, its YAML path and a hint.
A valid file's commands and URLs (its mcp entries' servers: each command
with its arguments, each URL with the headers sent to it), whether you
trusted them (loom trust FILE), its models, and what loom mcp serve offers
MCP clients to read (resources and the files they read, knowledge
documents, the files its entries name, prompts) are listed.
A folder holding an AIGNE project (aigne.yaml) is imported first; what has
no loom equivalent is reported at its line. Any other folder names its
loom.yaml, for every command that takes FILE.

Paths in the file are read from inside its folder only (--root DIR widens
that to DIR, for trusted setups), regular files of at most 1 MiB each.

Exit status: 0 when the file is valid, 2 otherwise.
`

const schemaUsage = `Usage: loom schema

Prints the JSON Schema of loom/v1 files. Save it beside your files and start
them with "# yaml-language-server: $schema=./loom.schema.json" for
completion and checks in your editor.
`

func runValidate(args []string, stdout, stderr io.Writer) int {
	cmd := newCommand("loom validate", "validate", validateUsage, stdout, stderr)
	var rs runSettings
	cmd.fs.StringVar(&rs.root, "root", "", "the folder the file's paths may reach")
	pos, status, quit := cmd.parse(args)
	if quit {
		return status
	}
	if len(pos) != 1 {
		fmt.Fprint(stderr, "loom validate: give one file: loom validate FILE\n")
		return exitInvalid
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
	fmt.Fprintf(stdout, "%s: valid\n", path)
	if reaches := reachLines(d); len(reaches) > 0 {
		state := "not trusted yet: loom trust " + path + " allows them"
		if store, err := trust.Open(); err == nil {
			if ok, _ := store.Trusted(trustPath(path), reaches); ok {
				state = "trusted"
			}
		}
		fmt.Fprintf(stdout, "when it runs, it starts or reaches (%s):\n%s", state, indentLines(reaches))
	}
	if models := d.Models(); len(models) > 0 {
		fmt.Fprintf(stdout, "models: %s (each reached at its provider's API)\n", strings.Join(models, ", "))
	}
	if offers := d.Offers(); len(offers) > 0 {
		fmt.Fprintf(stdout, "under loom mcp serve, MCP clients may read:\n%s", indentLines(offers))
	}
	return exitOK
}

func runSchema(args []string, stdout, stderr io.Writer) int {
	if len(args) > 0 {
		if args[0] == "-h" || args[0] == "--help" || args[0] == "-help" {
			fmt.Fprint(stdout, schemaUsage)
			return exitOK
		}
		fmt.Fprintf(stderr, "loom schema: unexpected argument %q: it takes none\n", args[0])
		return exitInvalid
	}
	fmt.Fprintf(stdout, "%s\n", spec.Schema())
	return exitOK
}
