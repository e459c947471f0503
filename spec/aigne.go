package spec

import (
	"fmt"
	"path/filepath"
	"strings"
	"unicode"

	"go.yaml.in/yaml/v4"
)

// AIGNEProject is the name of an AIGNE project's file.
const AIGNEProject = "aigne.yaml"

// ImportAIGNE reads an AIGNE project (dir/aigne.yaml and the agent files
// it lists, keys in snake_case or camelCase) and returns the loom/v1 file
// it corresponds to. Supported: the project's chat_model (provider, name
// or model, temperature, top_p), agents of type ai (name, description,
// instructions as text or {url}, input_key, output_key, input_schema and
// output_schema inline or as files, skills or tools as agent files,
// tool_choice), team (mode sequential or parallel, skills as members) and
// mcp (command with args, or url) as an mcp entry, offered as tools to
// the ai agents that list it in skills. Every other construct (function,
// transform and image agents, hooks,
// memory, afs, reflection, cli, mcp_server …) is an [*Error] naming it at
// its line: it has no loom equivalent the import could write.
//
// Every file the project names is read as the loader reads a loom file's:
// inside dir, a regular file, at most [DefaultMaxFileBytes].
func ImportAIGNE(dir string) ([]byte, error) { return ImportAIGNEWith(dir, Options{}) }

// ImportAIGNEWith is [ImportAIGNE] with o's root (default dir) and read
// limit.
func ImportAIGNEWith(dir string, o Options) ([]byte, error) {
	path := filepath.Join(dir, AIGNEProject)
	im := &aigneImport{dir: dir, names: map[string]string{}, files: newProjectFiles(path, o)}
	root, err := im.read(path, "")
	if err != nil {
		return nil, err
	}
	out := map[string]any{"version": Version}
	agents := map[string]any{}
	im.agents = agents
	var entry string
	im.each(root, func(key string, k, v *yaml.Node) {
		switch key {
		case "name":
			out["name"] = v.Value
		case "description":
			out["description"] = v.Value
		case "chat_model", "model":
			im.chatModel(path, v, out)
		case "agents":
			for _, item := range v.Content {
				name := im.agentFile(dir, item.Value, path, item)
				if entry == "" {
					entry = name
				}
			}
		default:
			im.unsupported(path, k, key)
		}
	})
	if len(im.errs) > 0 {
		return nil, im.errs
	}
	if entry != "" {
		out["entry"] = entry
	}
	out["agents"] = agents
	return yaml.Marshal(out)
}

type aigneImport struct {
	dir      string
	errs     Errors
	agents   map[string]any
	names    map[string]string // agent file → its name
	sampling map[string]any
	files    projectFiles
}

func (im *aigneImport) fail(file string, n *yaml.Node, path, hint, format string, args ...any) {
	e := &Error{File: file, Path: path, Msg: fmt.Sprintf(format, args...), Hint: hint, Err: fileCause(args)}
	if n != nil {
		e.Line, e.Col = n.Line, n.Column
	}
	im.errs = append(im.errs, e)
}

func (im *aigneImport) unsupported(file string, k *yaml.Node, key string) {
	im.fail(file, k, key, "declare it in loom/v1 directly, or leave it out", "AIGNE's %s has no loom equivalent the import can write", key)
}

// read reads the YAML file at path: the project's own file when name is
// "", else name as written in a file in path's folder, inside the root.
func (im *aigneImport) read(path, name string) (*yaml.Node, error) {
	var (
		src []byte
		err error
	)
	if name == "" {
		src, err = readFileBounded(path, im.files.limit)
	} else {
		src, err = im.files.read(filepath.Dir(path), name)
	}
	if err != nil {
		return nil, Errors{{File: path, Msg: fmt.Sprintf("cannot read the file: %v", err), Hint: im.hint(err), Err: fileCause([]any{err})}}
	}
	var root yaml.Node
	if err := yaml.Unmarshal(src, &root); err != nil {
		return nil, Errors{{File: path, Msg: "not valid YAML: " + err.Error()}}
	}
	if len(root.Content) == 0 || root.Content[0].Kind != yaml.MappingNode {
		return nil, Errors{{File: path, Line: 1, Col: 1, Msg: "want a mapping of keys"}}
	}
	return root.Content[0], nil
}

// each calls fn for every key of a mapping, the key in snake_case.
func (im *aigneImport) each(m *yaml.Node, fn func(key string, k, v *yaml.Node)) {
	for i := 0; i+1 < len(m.Content); i += 2 {
		k, v := m.Content[i], m.Content[i+1]
		fn(snake(k.Value), k, v)
	}
}

// snake turns camelCase into snake_case; snake_case stays.
func snake(s string) string {
	var b strings.Builder
	for i, r := range s {
		if unicode.IsUpper(r) {
			if i > 0 {
				b.WriteByte('_')
			}
			r = unicode.ToLower(r)
		}
		b.WriteRune(r)
	}
	return b.String()
}

func (im *aigneImport) chatModel(file string, m *yaml.Node, out map[string]any) {
	if m.Kind == yaml.ScalarNode {
		out["model"] = m.Value
		return
	}
	var provider, name string
	im.sampling = map[string]any{}
	im.each(m, func(key string, k, v *yaml.Node) {
		switch key {
		case "provider":
			provider = v.Value
		case "name", "model":
			name = v.Value
		case "temperature", "top_p":
			var f float64
			if err := v.Decode(&f); err != nil {
				im.fail(file, v, "chat_model."+key, "", "want a number")
				return
			}
			im.sampling[key] = f
		default:
			im.unsupported(file, k, "chat_model."+key)
		}
	})
	ref := provider
	if name != "" {
		ref += ":" + name
	}
	out["model"] = ref
}

// agentFile imports the agent declared in file, as written in a file in
// folder dir, once, and returns its name.
func (im *aigneImport) agentFile(dir, file, from string, at *yaml.Node) string {
	path := filepath.Join(dir, file)
	if name, ok := im.names[path]; ok {
		return name
	}
	root, err := im.read(filepath.Join(dir, "_"), file)
	if err != nil {
		var errs Errors
		if asErrors(err, &errs) {
			for _, e := range errs {
				if e.Line == 0 && at != nil {
					e.File, e.Line, e.Col, e.Msg = from, at.Line, at.Column, fmt.Sprintf("%s: %s", filepath.Base(path), e.Msg)
				}
			}
			im.errs = append(im.errs, errs...)
		}
		return ""
	}
	name := strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
	if n := valueOf(root, "name"); n != nil {
		name = n.Value
	}
	im.names[path] = name
	dir = filepath.Dir(path)
	typ := "ai"
	if t := valueOf(root, "type"); t != nil {
		typ = t.Value
	}
	entry := map[string]any{}
	var skills, command []string
	mode := "sequential"
	im.each(root, func(key string, k, v *yaml.Node) {
		switch key {
		case "type", "name":
		case "description":
			entry["description"] = v.Value
		case "instructions":
			if typ != "ai" {
				im.unsupported(path, k, typ+"."+key)
				return
			}
			entry["instructions"] = im.text(path, dir, v)
		case "input_key", "output_key":
			entry[key] = v.Value
		case "tool_choice":
			entry[key] = v.Value
		case "input_schema", "output_schema":
			if typ != "ai" {
				im.unsupported(path, k, typ+"."+key)
				return
			}
			entry[key] = im.schema(path, dir, v)
		case "skills", "tools":
			for _, item := range v.Content {
				if item.Kind != yaml.ScalarNode {
					im.fail(path, item, key, "name the skill's agent file", "inline skills have no loom equivalent the import can write")
					continue
				}
				if n := im.agentFile(dir, item.Value, path, item); n != "" {
					skills = append(skills, n)
				}
			}
		case "command", "args", "url":
			if typ != "mcp" {
				im.unsupported(path, k, key)
				return
			}
			switch {
			case key == "url":
				entry["url"] = v.Value
			case key == "command":
				command = append([]string{v.Value}, command...)
			default:
				var args []string
				if err := v.Decode(&args); err != nil {
					im.fail(path, v, key, "list the arguments", "want a list of strings")
					return
				}
				command = append(command, args...)
			}
		case "mode":
			if typ != "team" || (v.Value != "sequential" && v.Value != "parallel") {
				im.fail(path, v, key, "use sequential or parallel", "team mode %q has no loom equivalent", v.Value)
			}
			mode = v.Value
		default:
			im.unsupported(path, k, key)
		}
	})
	switch typ {
	case "ai":
		entry["type"] = "ai"
		if len(skills) > 0 {
			entry["tools"] = skills
		}
		if len(im.sampling) > 0 {
			entry["sampling"] = im.sampling
		}
	case "mcp":
		entry["type"] = "mcp"
		if len(command) > 0 {
			entry["command"] = command
		}
	case "team":
		if mode == "parallel" {
			entry["type"], entry["branches"] = "parallel", skills
		} else {
			entry["type"], entry["steps"] = "sequence", skills
		}
	default:
		t := valueOf(root, "type")
		hint := "loom runs JavaScript only in its sandbox: declare a function entry"
		if typ != "function" {
			hint = "declare it in loom/v1 directly, or leave it out"
		}
		im.fail(path, t, "type", hint, "AIGNE agents of type %q have no loom equivalent the import can write", typ)
		return name
	}
	if _, dup := im.agents[name]; dup {
		im.fail(path, valueOf(root, "name"), "name", "give the agents distinct names", "two agents are named %q", name)
	}
	im.agents[name] = entry
	return name
}

// text reads instructions: a string, or {url: file}.
func (im *aigneImport) text(file, dir string, v *yaml.Node) string {
	if v.Kind == yaml.ScalarNode {
		return v.Value
	}
	if u := valueOf(v, "url"); v.Kind == yaml.MappingNode && u != nil {
		b, err := im.files.read(dir, u.Value)
		if err != nil {
			im.fail(file, u, "instructions.url", im.hint(err), "cannot read %s: %v", u.Value, err)
			return ""
		}
		return string(b)
	}
	im.fail(file, v, "instructions", "use a string or {url: file}", "multi-role instructions have no loom equivalent")
	return ""
}

// schema reads a schema: inline, or a path to a JSON or YAML file.
func (im *aigneImport) schema(file, dir string, v *yaml.Node) any {
	var out map[string]any
	if v.Kind == yaml.ScalarNode {
		b, err := im.files.read(dir, v.Value)
		if err != nil {
			im.fail(file, v, "schema", im.hint(err), "schema %s: %v", v.Value, err)
			return out
		}
		if err := yaml.Unmarshal(b, &out); err != nil {
			im.fail(file, v, "schema", "", "schema %s: %v", v.Value, err)
		}
		return out
	}
	if err := v.Decode(&out); err != nil {
		im.fail(file, v, "schema", "", "%v", err)
	}
	return out
}

// hint is the hint of a file the import cannot read, "" for a missing one.
func (im *aigneImport) hint(err error) string {
	if h := im.files.hint(err); h != fileHintDefault {
		return h
	}
	return ""
}

func asErrors(err error, target *Errors) bool {
	es, ok := err.(Errors)
	if ok {
		*target = es
	}
	return ok
}

// LoadAIGNE imports the AIGNE project in dir ([ImportAIGNE]) and loads the
// result like [Load]. Errors in the imported file name dir/aigne.loom.yaml,
// the file [ImportAIGNE] would write.
func LoadAIGNE(dir string, reg Registry) (*Project, error) {
	src, err := ImportAIGNE(dir)
	if err != nil {
		return nil, err
	}
	d, err := Validate(filepath.Join(dir, "aigne.loom.yaml"), src, reg, Options{})
	if err != nil {
		return nil, err
	}
	return Build(d, reg)
}
