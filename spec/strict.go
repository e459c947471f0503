package spec

import (
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v4"
)

// secretKeys are keys people write for credentials; the file never holds
// them, so they get their own hint.
var secretKeys = []string{"api_key", "apikey", "key", "token", "secret", "password", "api_token", "access_token"}

// checker walks a YAML tree against the Go types of the format, the same
// types the JSON Schema is generated from, and records every problem.
type checker struct {
	file string
	errs Errors
	// pos holds each value's node by YAML path, for later checks that
	// report at a value (references).
	pos map[string]*yaml.Node
}

func (c *checker) fail(n *yaml.Node, path, hint, format string, args ...any) {
	if hint == "" {
		hint = schemaHint
	}
	e := &Error{File: c.file, Path: path, Msg: fmt.Sprintf(format, args...), Hint: hint, Err: fileCause(args)}
	if n != nil {
		e.Line, e.Col = n.Line, n.Column
	}
	c.errs = append(c.errs, e)
}

// schemaHint is the hint of a problem without a more precise one.
const schemaHint = "'loom schema' lists every key, its type and its values"

// fileCause returns the file error among args (ErrOutsideProject,
// ErrNotRegular, ErrTooLarge), for errors.Is, or nil.
func fileCause(args []any) error {
	for _, a := range args {
		if err, ok := a.(error); ok {
			for _, cause := range []error{ErrOutsideProject, ErrNotRegular, ErrTooLarge} {
				if errors.Is(err, cause) {
					return err
				}
			}
		}
	}
	return nil
}

var (
	schemaRefType = reflect.TypeFor[SchemaRef]()
	commandType   = reflect.TypeFor[Command]()
)

// walk checks n against t at path.
func (c *checker) walk(n *yaml.Node, t reflect.Type, path string, tag reflect.StructTag) {
	if n.Kind == yaml.AliasNode && n.Alias != nil {
		n = n.Alias
	}
	c.pos[path] = n
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t == schemaRefType {
		if !(n.Kind == yaml.MappingNode || isScalar(n, "!!str")) {
			c.fail(n, path, "give a JSON Schema inline, as a mapping, or the path of a .json or .yaml file", "wrong type: want a schema or a path, got %s", describe(n))
		}
		return
	}
	if t == commandType {
		c.walkCommand(n, path)
		return
	}
	switch t.Kind() {
	case reflect.String:
		if !isScalar(n, "!!str") {
			c.fail(n, path, quoteHint(n), "wrong type: want a string, got %s", describe(n))
			return
		}
		if enum := enumOf(tag); len(enum) > 0 && !slices.Contains(enum, n.Value) {
			c.fail(n, path, joinHint(didYouMean(n.Value, enum), "want one of "+strings.Join(enum, ", ")), "unknown value %q", n.Value)
		}
	case reflect.Int:
		if !isScalar(n, "!!int") {
			c.fail(n, path, "write a whole number, as 3", "wrong type: want an integer, got %s", describe(n))
		}
	case reflect.Float64:
		if !isScalar(n, "!!int") && !isScalar(n, "!!float") {
			c.fail(n, path, "write a number, as 0.5", "wrong type: want a number, got %s", describe(n))
		}
	case reflect.Bool:
		if !isScalar(n, "!!bool") {
			c.fail(n, path, "write true or false", "wrong type: want true or false, got %s", describe(n))
		}
	case reflect.Slice:
		if n.Kind != yaml.SequenceNode {
			c.fail(n, path, "write a list: [a, b] or one '- item' a line", "wrong type: want a list, got %s", describe(n))
			return
		}
		if mi := minItems(tag); len(n.Content) < mi {
			c.fail(n, path, "list its items, as [a, b]", "the list is empty: give at least %d", mi)
		}
		for i, item := range n.Content {
			c.walk(item, t.Elem(), fmt.Sprintf("%s[%d]", path, i), "")
		}
	case reflect.Struct:
		c.walkStruct(n, t, path)
	case reflect.Map:
		if n.Kind != yaml.MappingNode {
			c.fail(n, path, "write one key: value a line under it", "wrong type: want a mapping, got %s", describe(n))
			return
		}
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			at := join(path, k.Value)
			if !isScalar(k, "!!str") {
				c.fail(k, at, quoteHint(k), "wrong type: want a string key, got %s", describe(k))
				continue
			}
			c.walk(v, t.Elem(), at, "")
		}
	default:
		c.fail(n, path, "", "internal: no rule for %s", t)
	}
}

// walkCommand checks a command: a non-empty string, or a non-empty list of
// strings.
func (c *checker) walkCommand(n *yaml.Node, path string) {
	switch {
	case isScalar(n, "!!str") && strings.TrimSpace(n.Value) != "":
	case n.Kind == yaml.SequenceNode && len(n.Content) > 0:
		for i, item := range n.Content {
			c.walk(item, reflect.TypeFor[string](), fmt.Sprintf("%s[%d]", path, i), "")
		}
	default:
		c.fail(n, path, "write the program and its arguments as a list [program, arg] or as one string", "wrong type: want a command, got %s", describe(n))
	}
}

// walkStruct checks a mapping against a struct's yaml keys: every key known
// and once, every required key present.
func (c *checker) walkStruct(n *yaml.Node, t reflect.Type, path string) {
	if n.Kind != yaml.MappingNode {
		c.fail(n, path, "write one key: value a line under it", "wrong type: want a mapping of keys, got %s", describe(n))
		return
	}
	fields := structFields(t)
	keys := make([]string, 0, len(fields))
	for _, f := range fields {
		keys = append(keys, f.key)
	}
	seen := map[string]bool{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		at := join(path, k.Value)
		f := fieldByKey(fields, k.Value)
		switch {
		case f == nil && slices.Contains(secretKeys, strings.ToLower(k.Value)):
			c.fail(k, at, "keys and secrets are never read from the file: set them in the environment or in .env.local", "unknown key %q", k.Value)
			continue
		case f == nil:
			c.fail(k, at, didYouMean(k.Value, keys), "unknown key %q", k.Value)
			continue
		case seen[k.Value]:
			c.fail(k, at, "keep one of them", "key %q is given twice", k.Value)
			continue
		}
		seen[k.Value] = true
		if f.key == "agents" && t == fileType {
			c.walkAgents(v, at)
			continue
		}
		c.walk(v, f.typ, at, f.tag)
	}
	for _, f := range fields {
		if f.required && !seen[f.key] {
			c.fail(n, path, "add "+f.key+": to it", "missing required key %q", f.key)
		}
	}
}

// walkAgents checks the agents mapping: names valid, each entry of a known
// type and valid for it.
func (c *checker) walkAgents(n *yaml.Node, path string) {
	if n.Kind != yaml.MappingNode {
		c.fail(n, path, "write each agent as name: {type: …} under agents", "wrong type: want a mapping of agent names to agents, got %s", describe(n))
		return
	}
	types := EntryTypes()
	seen := map[string]bool{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		at := join(path, k.Value)
		if seen[k.Value] {
			c.fail(k, at, "give the agents distinct names", "agent %q is declared twice", k.Value)
			continue
		}
		seen[k.Value] = true
		if !validName(k.Value) {
			c.fail(k, at, "use letters, digits, '_' or '-', starting with a letter or '_'", "agent name %q is not a valid name", k.Value)
		}
		if v.Kind != yaml.MappingNode {
			c.fail(v, at, "declare it as name: {type: ai, …}", "wrong type: want a mapping with a type key, got %s", describe(v))
			continue
		}
		tn := valueOf(v, "type")
		if tn == nil {
			c.fail(v, at, "want one of "+strings.Join(types, ", "), "missing required key \"type\"")
			continue
		}
		t, ok := entryType(tn.Value)
		if !ok || !isScalar(tn, "!!str") {
			c.fail(tn, join(at, "type"), joinHint(didYouMean(tn.Value, types), "want one of "+strings.Join(types, ", ")), "unknown agent type %q", tn.Value)
			continue
		}
		c.walk(v, t, at, "")
	}
}

// field is one yaml key of a struct.
type field struct {
	key      string
	typ      reflect.Type
	tag      reflect.StructTag
	required bool
}

func structFields(t reflect.Type) []field {
	var out []field
	for sf := range t.Fields() {
		if !sf.IsExported() {
			continue
		}
		name, opts, _ := strings.Cut(sf.Tag.Get("yaml"), ",")
		if name == "" || name == "-" {
			continue
		}
		out = append(out, field{key: name, typ: sf.Type, tag: sf.Tag, required: !strings.Contains(opts, "omitempty")})
	}
	return out
}

func fieldByKey(fs []field, key string) *field {
	for i := range fs {
		if fs[i].key == key {
			return &fs[i]
		}
	}
	return nil
}

// enumOf returns the enum=… values of a jsonschema tag.
func enumOf(tag reflect.StructTag) []string {
	var out []string
	for part := range strings.SplitSeq(tag.Get("jsonschema"), ",") {
		if v, ok := strings.CutPrefix(part, "enum="); ok {
			out = append(out, v)
		}
	}
	return out
}

// minItems returns the minItems=… of a jsonschema tag, or 0.
func minItems(tag reflect.StructTag) int {
	for part := range strings.SplitSeq(tag.Get("jsonschema"), ",") {
		if v, ok := strings.CutPrefix(part, "minItems="); ok {
			n, _ := strconv.Atoi(v)
			return n
		}
	}
	return 0
}

func entryType(name string) (reflect.Type, bool) {
	for _, t := range entryTypes {
		if t.name == name {
			return reflect.TypeOf(t.zero), true
		}
	}
	return nil, false
}

func valueOf(m *yaml.Node, key string) *yaml.Node {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return m.Content[i+1]
		}
	}
	return nil
}

func isScalar(n *yaml.Node, tag string) bool {
	return n.Kind == yaml.ScalarNode && n.ShortTag() == tag
}

// describe names what a node holds, for "got …".
func describe(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.ScalarNode:
		switch n.ShortTag() {
		case "!!null":
			return "nothing"
		case "!!str":
			return fmt.Sprintf("the string %q", n.Value)
		case "!!int":
			return "the integer " + n.Value
		case "!!float":
			return "the number " + n.Value
		case "!!bool":
			return n.Value
		}
		return fmt.Sprintf("%s %q", n.ShortTag(), n.Value)
	}
	return "an alias"
}

// quoteHint suggests quoting a scalar meant as a string.
func quoteHint(n *yaml.Node) string {
	if n.Kind == yaml.ScalarNode && n.ShortTag() != "!!null" {
		return fmt.Sprintf("quote it to make it a string: %q", n.Value)
	}
	return ""
}

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

func joinHint(a, b string) string {
	if a == "" {
		return b
	}
	return a + " (" + b + ")"
}

var fileType = reflect.TypeFor[File]()

// newOf returns a pointer to a new zero value of t.
func newOf(t reflect.Type) any { return reflect.New(t).Interface() }
