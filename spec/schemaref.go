package spec

import (
	"encoding/json"

	"github.com/invopop/jsonschema"
	"go.yaml.in/yaml/v4"
)

// SchemaRef is a JSON Schema given inline, as a YAML mapping, or as the
// path of a .json or .yaml file relative to the loom file's folder.
type SchemaRef struct {
	// Path is the file named, or "" for an inline schema.
	Path string
	// Inline is the inline schema as decoded from YAML.
	Inline map[string]any
	// JSON is the schema, read and converted by [Parse].
	JSON json.RawMessage
}

// UnmarshalYAML reads a path or an inline schema.
func (s *SchemaRef) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind == yaml.ScalarNode {
		s.Path = n.Value
		return nil
	}
	return n.Decode(&s.Inline)
}

// JSONSchema describes SchemaRef: a path or a schema object.
func (SchemaRef) JSONSchema() *jsonschema.Schema {
	return &jsonschema.Schema{OneOf: []*jsonschema.Schema{
		{Type: "string", Description: "path of a JSON or YAML schema file, relative to this file"},
		{Type: "object", Description: "an inline JSON Schema"},
	}}
}
