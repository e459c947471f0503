package spec

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

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
	// files reads the files the Doc names, inside its root.
	files projectFiles
	// broken are the entries with errors of their own, which Check and
	// Build pass over.
	broken map[string]bool
	// opened are the models Validate opened with the registry's Models,
	// which Build reuses.
	opened map[string]model.Model
	// knowledge are the files the knowledge patterns match.
	knowledge []string
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
// key and unreadable file, each with file:line:col. Files are read as
// [ParseWith] with zero [Options] reads them.
func Parse(path string) (*Doc, error) { return strict(ParseWith(path, nil, Options{})) }

var yamlLine = regexp.MustCompile(`line (\d+)`)

// ParseBytes is [Parse] of src, as if read from path: relative paths in it
// are read from path's folder.
func ParseBytes(path string, src []byte) (*Doc, error) {
	if src == nil {
		src = []byte{}
	}
	return strict(ParseWith(path, src, Options{}))
}

// strict drops the partial Doc of a file with errors.
func strict(d *Doc, err error) (*Doc, error) {
	if err != nil {
		return nil, err
	}
	return d, nil
}

// ParseWith parses the loom/v1 file at path (src when it is not nil, as
// if read from path) and reads the files it names, each inside o's root
// and within its size limit. It returns [Errors] listing every problem
// and, unless the file is not YAML at all, the Doc parsed so far: entries
// with errors of their own are kept, marked so that [Check] and [Build]
// pass over them, so that [Validate] can go on to list the problems of
// the others.
func ParseWith(path string, src []byte, o Options) (*Doc, error) {
	if src == nil {
		b, err := readFileBounded(path, o.limit())
		if err != nil {
			e := &Error{File: path, Msg: fmt.Sprintf("cannot read the file: %v", err), Err: fileCause([]any{err})}
			if errors.Is(err, ErrNotRegular) || errors.Is(err, ErrTooLarge) {
				e.Hint = fmt.Sprintf("a loom file is a regular file of at most %d bytes", o.limit())
			}
			return nil, Errors{e}
		}
		src = b
	}
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
	d := &Doc{Path: path, Dir: filepath.Dir(path), pos: c.pos, files: newProjectFiles(path, o), broken: map[string]bool{}}
	if doc.Kind != yaml.MappingNode {
		return nil, c.errs
	}
	walkErrs := len(c.errs)
	for i := 0; i+1 < len(doc.Content); i += 2 {
		k, v := doc.Content[i], doc.Content[i+1]
		if k.Value == "agents" || c.failedAt(k.Value, walkErrs) {
			continue
		}
		// Keys and types were checked by the walk: decode each top-level
		// value alone, so a wrong one leaves the others.
		one := &yaml.Node{Kind: yaml.MappingNode, Content: []*yaml.Node{k, v}}
		_ = one.Decode(&d.File)
	}
	agents := valueOf(doc, "agents")
	if agents == nil || agents.Kind != yaml.MappingNode {
		return d, c.errs.err()
	}
	seen := map[string]bool{}
	for i := 0; i+1 < len(agents.Content); i += 2 {
		k, v := agents.Content[i], agents.Content[i+1]
		at := join("agents", k.Value)
		if v.Kind != yaml.MappingNode || valueOf(v, "type") == nil || seen[k.Value] {
			continue
		}
		t, ok := entryType(valueOf(v, "type").Value)
		if !ok {
			continue
		}
		seen[k.Value] = true
		cfg := newOf(t)
		broken := c.failedAt(at, walkErrs)
		if err := v.Decode(cfg); err != nil && !broken {
			c.fail(v, at, "", "%v", err)
			broken = true
		}
		e := &Entry{Name: k.Value, Type: valueOf(v, "type").Value, Line: k.Line, Col: k.Column, Config: cfg}
		d.Agents = append(d.Agents, e)
		if broken {
			// Its files and settings are still checked, but not what a
			// key with a wrong value would make wrong again (an mcp entry's
			// command or url, a graph's nodes): one mistake, one error.
			d.broken[e.Name] = true
		}
		before := len(c.errs)
		d.readFiles(c, e, !broken)
		if len(c.errs) > before {
			d.broken[e.Name] = true
		}
	}
	if d.File.Agents == nil {
		d.File.Agents = map[string]any{}
	}
	d.checkSandboxTrust(c)
	d.checkServed(c, walkErrs)
	return d, c.errs.err()
}

// failedAt reports whether one of the first n errors is at path or inside
// it.
func (c *checker) failedAt(path string, n int) bool {
	for _, e := range c.errs[:n] {
		if e.Path == path || strings.HasPrefix(e.Path, path+".") || strings.HasPrefix(e.Path, path+"[") {
			return true
		}
	}
	return false
}

// readFiles reads the instruction, code and schema files an entry names,
// relative to the file's folder.
func (d *Doc) readFiles(c *checker, e *Entry, whole bool) {
	at := join("agents", e.Name)
	text := func(key, p string, into *string) {
		if p == "" {
			return
		}
		b, err := d.files.read(d.Dir, p)
		if err != nil {
			hint := d.files.hint(err)
			if hint == fileHintDefault {
				hint = "paths are relative to the folder of " + filepath.Base(d.Path)
			}
			c.fail(d.pos[join(at, key)], join(at, key), hint, "cannot read %s: %v", p, err)
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
			hint := d.files.hint(err)
			switch {
			case errors.Is(err, fs.ErrNotExist) || errors.Is(err, fs.ErrPermission):
				hint = "paths are relative to the folder of " + filepath.Base(d.Path)
			case hint == fileHintDefault:
				hint = "give a JSON Schema, as {type: object, properties: {…}}"
			}
			c.fail(n, join(at, key), hint, "%v", err)
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
		d.checkSandbox(c, at, cfg.Sandbox)
		for _, lim := range []struct {
			key string
			v   int
		}{{"max_calls", cfg.SandboxCalls.MaxCalls}, {"max_in_flight", cfg.SandboxCalls.MaxInFlight}} {
			if p := join(join(at, "sandbox_calls"), lim.key); lim.v < 0 {
				c.fail(d.pos[p], p, "leave it out for the default, or give a positive bound", "%s is %d", lim.key, lim.v)
			}
		}
	case *MCP:
		if whole {
			d.checkMCP(c, e, cfg)
		}
	case *Graph:
		if whole {
			d.checkGraph(c, e, cfg)
		}
		d.checkSandbox(c, at, cfg.Sandbox)
	case *Function:
		switch {
		case cfg.Code != "" && cfg.CodeFile != "":
			c.fail(d.pos[join(at, "code_file")], join(at, "code_file"), "keep one of them", "both code and code_file are given")
		case cfg.Code == "" && cfg.CodeFile == "" && whole:
			c.fail(d.pos[at], at, "write the JavaScript in code, or name its file in code_file", "a function needs code")
		}
		text("code_file", cfg.CodeFile, &cfg.Code)
		if cfg.Returns == "content" && cfg.OutputSchema != nil {
			c.fail(d.pos[join(at, "output_schema")], join(at, "output_schema"), "leave output_schema out: a content function's output is {result: its text}", "a function with returns: content has no output schema")
		}
		d.checkSandbox(c, at, cfg.Sandbox)
		schema("input_schema", cfg.InputSchema)
		schema("output_schema", cfg.OutputSchema)
	}
}

// checkSandbox checks an entry's sandbox settings, the same way whether
// the entry starts its own sandbox or the registry lends one.
func (d *Doc) checkSandbox(c *checker, at string, s Sandbox) {
	at = join(at, "sandbox")
	if s.Timeout != "" {
		if _, err := sandboxTimeout(s.Timeout); err != nil {
			p := join(at, "timeout")
			c.fail(d.pos[p], p, "want a positive Go duration such as 5s or 500ms", "%v", err)
		}
	}
	if s.MemoryMB < 0 {
		p := join(at, "memory_mb")
		c.fail(d.pos[p], p, "leave it out for the default, or give a positive number of MiB", "memory_mb is %d", s.MemoryMB)
	}
}

// sandboxTimeout reads a sandbox timeout: a positive Go duration.
func sandboxTimeout(s string) (time.Duration, error) {
	t, err := time.ParseDuration(s)
	if err != nil || t <= 0 {
		return 0, fmt.Errorf("timeout %q is not a positive duration", s)
	}
	return t, nil
}

// schemaJSON returns a schema's JSON, reading its file when it names one.
func (d *Doc) schemaJSON(s *SchemaRef) (json.RawMessage, error) {
	v := any(s.Inline)
	if s.Path != "" {
		b, err := d.files.read(d.Dir, s.Path)
		if err != nil {
			return nil, fmt.Errorf("cannot read schema %s: %w", s.Path, err)
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

// unwrapPath drops the path an *os.PathError repeats.
func unwrapPath(err error) error {
	if pe, ok := err.(*os.PathError); ok {
		return pe.Err
	}
	return err
}

func validName(s string) bool { return model.ValidToolName(s) }
