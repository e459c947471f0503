package spec

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/loomwork/loom/model"
	"go.yaml.in/yaml/v4"
)

// Doc is a parsed loom/v1 file: its keys checked, the files it names read.
// Its references are not checked yet ([Check]) nor its agents built
// ([Build]).
type Doc struct {
	// Path is the file's path as given; Dir the folder relative paths are
	// read from.
	Path, Dir string
	// File is the file's top-level content.
	File File
	// Agents are the declared agents, in file order.
	Agents []*Entry
	// pos holds each value's node by YAML path.
	pos map[string]*yaml.Node
}

// Entry is one declared agent.
type Entry struct {
	// Name is its key under agents; Type its type key.
	Name, Type string
	// Line and Col are where its name is written.
	Line, Col int
	// Config is the entry's settings: *AI, *CodeExecution, *Sequence,
	// *Parallel, *Map, *Reflect, *Route, *Coordinator or *Function, with
	// the files it names already read (instructions, code, schemas).
	Config any
}

// Entry returns the declared agent called name, or nil.
func (d *Doc) Entry(name string) *Entry {
	for _, e := range d.Agents {
		if e.Name == name {
			return e
		}
	}
	return nil
}

// Parse reads the loom/v1 file at path and the files it names. It fails
// with [Errors] listing every unknown key, wrong type, missing required
// key and unreadable file, each with file:line:col.
func Parse(path string) (*Doc, error) {
	src, err := os.ReadFile(path)
	if err != nil {
		return nil, Errors{{File: path, Msg: fmt.Sprintf("cannot read the file: %v", err)}}
	}
	return ParseBytes(path, src)
}

var yamlLine = regexp.MustCompile(`line (\d+)`)

// ParseBytes is [Parse] of src, as if read from path: relative paths in it
// are read from path's folder.
func ParseBytes(path string, src []byte) (*Doc, error) {
	var root yaml.Node
	if err := yaml.Unmarshal(src, &root); err != nil {
		e := &Error{File: path, Msg: "not valid YAML: " + strings.TrimPrefix(err.Error(), "yaml: ")}
		if m := yamlLine.FindStringSubmatch(err.Error()); m != nil {
			e.Line, _ = strconv.Atoi(m[1])
			e.Col = 1
		}
		return nil, Errors{e}
	}
	if len(root.Content) == 0 {
		return nil, Errors{{File: path, Line: 1, Col: 1, Msg: "the file is empty", Hint: "start it with version: " + Version}}
	}
	doc := root.Content[0]
	c := &checker{file: path, pos: map[string]*yaml.Node{}}
	c.walk(doc, fileType, "", "")
	if len(c.errs) > 0 {
		return nil, c.errs
	}
	d := &Doc{Path: path, Dir: filepath.Dir(path), pos: c.pos}
	if err := doc.Decode(&d.File); err != nil {
		return nil, Errors{{File: path, Msg: err.Error()}}
	}
	agents := valueOf(doc, "agents")
	for i := 0; i+1 < len(agents.Content); i += 2 {
		k, v := agents.Content[i], agents.Content[i+1]
		t, _ := entryType(valueOf(v, "type").Value)
		cfg := newOf(t)
		if err := v.Decode(cfg); err != nil {
			c.fail(v, join("agents", k.Value), "", "%v", err)
			continue
		}
		e := &Entry{Name: k.Value, Type: valueOf(v, "type").Value, Line: k.Line, Col: k.Column, Config: cfg}
		d.Agents = append(d.Agents, e)
		d.readFiles(c, e)
	}
	d.checkSandboxTrust(c)
	return d, c.errs.err()
}

// readFiles reads the instruction, code and schema files an entry names,
// relative to the file's folder.
func (d *Doc) readFiles(c *checker, e *Entry) {
	at := join("agents", e.Name)
	text := func(key, p string, into *string) {
		if p == "" {
			return
		}
		b, err := os.ReadFile(d.abs(p))
		if err != nil {
			c.fail(d.pos[join(at, key)], join(at, key), "paths are relative to the folder of "+filepath.Base(d.Path), "cannot read %s: %v", p, unwrapPath(err))
			return
		}
		*into = string(b)
	}
	schema := func(key string, s *SchemaRef) {
		if s == nil {
			return
		}
		n := d.pos[join(at, key)]
		raw, err := d.schemaJSON(s)
		if err != nil {
			c.fail(n, join(at, key), "", "%v", err)
			return
		}
		s.JSON = raw
	}
	switch cfg := e.Config.(type) {
	case *AI:
		if cfg.Instructions != "" && cfg.InstructionsFile != "" {
			c.fail(d.pos[join(at, "instructions_file")], join(at, "instructions_file"), "keep one of them", "both instructions and instructions_file are given")
		}
		text("instructions_file", cfg.InstructionsFile, &cfg.Instructions)
		schema("input_schema", cfg.InputSchema)
		schema("output_schema", cfg.OutputSchema)
	case *CodeExecution:
		if cfg.Instructions != "" && cfg.InstructionsFile != "" {
			c.fail(d.pos[join(at, "instructions_file")], join(at, "instructions_file"), "keep one of them", "both instructions and instructions_file are given")
		}
		text("instructions_file", cfg.InstructionsFile, &cfg.Instructions)
		for _, lim := range []struct {
			key string
			v   int
		}{{"max_calls", cfg.SandboxCalls.MaxCalls}, {"max_in_flight", cfg.SandboxCalls.MaxInFlight}} {
			if p := join(join(at, "sandbox_calls"), lim.key); lim.v < 0 {
				c.fail(d.pos[p], p, "leave it out for the default, or give a positive bound", "%s is %d", lim.key, lim.v)
			}
		}
	case *MCP:
		d.checkMCP(c, e, cfg)
	case *Graph:
		d.checkGraph(c, e, cfg)
	case *Function:
		switch {
		case cfg.Code != "" && cfg.CodeFile != "":
			c.fail(d.pos[join(at, "code_file")], join(at, "code_file"), "keep one of them", "both code and code_file are given")
		case cfg.Code == "" && cfg.CodeFile == "":
			c.fail(d.pos[at], at, "write the JavaScript in code, or name its file in code_file", "a function needs code")
		}
		text("code_file", cfg.CodeFile, &cfg.Code)
		schema("input_schema", cfg.InputSchema)
		schema("output_schema", cfg.OutputSchema)
	}
}

// schemaJSON returns a schema's JSON, reading its file when it names one.
func (d *Doc) schemaJSON(s *SchemaRef) (json.RawMessage, error) {
	v := any(s.Inline)
	if s.Path != "" {
		b, err := os.ReadFile(d.abs(s.Path))
		if err != nil {
			return nil, fmt.Errorf("cannot read schema %s: %w", s.Path, unwrapPath(err))
		}
		var m map[string]any
		if err := yaml.Unmarshal(b, &m); err != nil {
			return nil, fmt.Errorf("schema %s is not JSON or YAML: %w", s.Path, err)
		}
		v = m
	}
	raw, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("schema cannot be written as JSON: %w", err)
	}
	return raw, nil
}

func (d *Doc) abs(p string) string {
	if filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(d.Dir, p)
}

// unwrapPath drops the path an *os.PathError repeats.
func unwrapPath(err error) error {
	if pe, ok := err.(*os.PathError); ok {
		return pe.Err
	}
	return err
}

func validName(s string) bool { return model.ValidToolName(s) }
