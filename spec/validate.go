package spec

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"iter"
	"slices"

	"github.com/loomwork/loom/model"
	"github.com/loomwork/loom/sandbox"
)

// Validate is the one check of a loom file, made alike by loom validate
// and by everything that loads a file to run it ([LoadWith], loom run,
// serve and mcp serve): [ParseWith], then [Check], then every constructor
// ([Build] with models that are never called and a sandbox that runs
// nothing). It returns [Errors] listing every problem it finds in all
// three, each once; an entry with a problem is not checked further, nor
// are the entries that use it. Nothing runs: no model is called, no
// sandbox or MCP server started, no key read. reg's Models, when set,
// opens the models (without calling them); else a model's provider must
// be one model.Providers lists.
//
// The Doc is returned even with errors, unless the file cannot be read or
// is not YAML; with o.Model and o.DefaultModel applied.
func Validate(path string, src []byte, reg Registry, o Options) (*Doc, error) {
	d, err := ParseWith(path, src, o)
	if d == nil {
		return nil, err
	}
	var errs Errors
	errors.As(err, &errs)
	if o.Model != "" {
		d.File.Model = o.Model
	}
	if d.File.Model == "" {
		d.File.Model = o.DefaultModel
	}
	if err := Check(d, reg); err != nil {
		errs = append(errs, err.(Errors)...)
	}
	dry := reg
	if dry.Sandbox == nil {
		// A lent sandbox is only handed to constructors; one of our own
		// is not started.
		dry.Sandbox = noSandbox{}
	}
	if dry.Models == nil {
		dry.Models = knownProvider
	} else {
		// The caller's models are opened once: Build reuses them.
		d.opened = map[string]model.Model{}
		open := reg.Models
		dry.Models = func(ref string) (model.Model, error) {
			m, err := open(ref)
			if err == nil {
				d.opened[ref] = m
			}
			return m, err
		}
	}
	p, err := Build(d, dry)
	switch {
	case err == nil:
		_ = p.Close()
	case errors.As(err, new(Errors)):
		var be Errors
		errors.As(err, &be)
		errs = append(errs, be...)
	default:
		errs = append(errs, &Error{File: path, Msg: err.Error()})
	}
	// In file order, whichever stage found them.
	slices.SortStableFunc(errs, func(a, b *Error) int {
		return cmp.Or(cmp.Compare(a.Line, b.Line), cmp.Compare(a.Col, b.Col))
	})
	return d, errs.err()
}

// LoadWith is [Load] with options: [Validate], then [Build].
func LoadWith(path string, reg Registry, o Options) (*Project, error) {
	d, err := Validate(path, nil, reg, o)
	if err != nil {
		return nil, err
	}
	return Build(d, reg)
}

// ClientModel is the model reference of the model of the MCP client
// that calls the file's agents (model: client): loom mcp serve provides
// it through sampling; elsewhere a call to it fails with a clear error.
const ClientModel = "client"

// knownProvider stands a model whose provider is registered, and refuses
// any other, without reading a key.
func knownProvider(ref string) (model.Model, error) {
	if ref == ClientModel {
		return uncalled{ref}, nil
	}
	provider, _, err := model.ParseID(ref)
	if err != nil {
		return nil, err
	}
	for _, p := range model.Providers() {
		if p.ID == provider {
			return uncalled{ref}, nil
		}
	}
	return nil, fmt.Errorf("%w: %q", model.ErrUnknownProvider, provider)
}

// errNotRun is what the stand-ins of Validate answer if called.
var errNotRun = errors.New("spec: validation runs nothing")

// uncalled stands for a model Validate names but never calls.
type uncalled struct{ ref string }

func (u uncalled) Provider() string { return u.ref }
func (u uncalled) Name() string     { return u.ref }
func (u uncalled) Stream(context.Context, model.Request) iter.Seq2[model.Chunk, error] {
	return func(yield func(model.Chunk, error) bool) { yield(model.Chunk{}, errNotRun) }
}

// noSandbox stands for the sandbox of Validate: it runs nothing.
type noSandbox struct{}

func (noSandbox) Run(context.Context, string) (*sandbox.Result, error) { return nil, errNotRun }
func (noSandbox) Close() error                                         { return nil }
func (noSandbox) RunWithTools(context.Context, string, *sandbox.Toolbox) (*sandbox.Result, error) {
	return nil, errNotRun
}
