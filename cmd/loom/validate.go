package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"iter"

	"github.com/loomwork/loom/internal/command"
	"github.com/loomwork/loom/model"
	"github.com/loomwork/loom/sandbox"
	"github.com/loomwork/loom/spec"
)

// Exit statuses of the spec commands.
const (
	exitOK      = command.ExitOK      // the run answered; the file is valid
	exitFailed  = command.ExitFailed  // the run failed
	exitInvalid = command.ExitUsage   // a bad command line, an invalid file, a missing key
	exitWaiting = command.ExitWaiting // the run waits for an answer: loom resume ID
)

const validateUsage = `Usage: loom validate FILE|AIGNE-FOLDER

Checks a loom/v1 file and the files it names without running anything or
calling any model: unknown keys (with the nearest valid one), wrong types,
missing files, unknown references and reference cycles, and what each
agent's constructor checks. Every problem is listed as file:line:col.
A folder holding an AIGNE project (aigne.yaml) is imported first; what has
no loom equivalent is reported at its line. Exit status: 0 when the file is
valid, 2 otherwise.
`

const schemaUsage = `Usage: loom schema

Prints the JSON Schema of loom/v1 files. Save it beside your files and start
them with "# yaml-language-server: $schema=./loom.schema.json" for
completion and checks in your editor.
`

func runValidate(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("loom validate", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprint(stdout, validateUsage)
			return exitOK
		}
		fmt.Fprintf(stderr, "loom validate: %v: run 'loom help validate'\n", err)
		return exitInvalid
	}
	if fs.NArg() != 1 {
		fmt.Fprint(stderr, "loom validate: give one file: loom validate FILE\n")
		return exitInvalid
	}
	path := fs.Arg(0)
	if err := validate(path); err != nil {
		fmt.Fprintln(stderr, err)
		return exitInvalid
	}
	fmt.Fprintf(stdout, "%s: valid\n", path)
	return exitOK
}

// validate parses, checks and builds the file with models that are never
// called and an in-process sandbox, so every constructor's checks run but
// nothing else does.
func validate(path string) error {
	d, err := parseFile(path)
	if err != nil {
		return err
	}
	if err := spec.Check(d, spec.Registry{}); err != nil {
		return err
	}
	exec, err := sandbox.NewInProcess()
	if err != nil {
		return err
	}
	defer exec.Close()
	p, err := spec.Build(d, spec.Registry{Sandbox: exec, Models: func(ref string) (model.Model, error) {
		provider, _, err := model.ParseID(ref)
		if err != nil {
			return nil, err
		}
		for _, p := range model.Providers() {
			if p.ID == provider {
				return unopened{ref}, nil
			}
		}
		return nil, fmt.Errorf("%w: %q", model.ErrUnknownProvider, provider)
	}})
	if err != nil {
		return err
	}
	return p.Close()
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

// unopened stands for a model validate names but never calls.
type unopened struct{ ref string }

func (u unopened) Provider() string { return u.ref }
func (u unopened) Name() string     { return u.ref }
func (u unopened) Stream(context.Context, model.Request) iter.Seq2[model.Chunk, error] {
	return func(yield func(model.Chunk, error) bool) {
		yield(model.Chunk{}, errors.New("loom validate calls no model"))
	}
}
