package spec

import (
	"encoding/json"

	"github.com/invopop/jsonschema"
)

// SchemaID is the $id of the schema [Schema] returns.
const SchemaID = "https://github.com/loomwork/loom/spec/loom.schema.json"

// Schema returns the JSON Schema (draft 2020-12) of a loom/v1 file,
// generated from this package's Go types, the same ones the loader checks
// against: every object has additionalProperties false, and each agent is
// one of the entry types, chosen by its type key. Editors use it through a
// first line such as "# yaml-language-server: $schema=./loom.schema.json".
func Schema() json.RawMessage {
	r := &jsonschema.Reflector{DoNotReference: true, ExpandedStruct: true}
	root := r.Reflect(&File{})
	root.ID = SchemaID
	root.Title = "loom/v1"
	root.Description = "Agents and workflows for loom, declared in YAML."
	entries := make([]*jsonschema.Schema, 0, len(entryTypes))
	for _, t := range entryTypes {
		s := r.Reflect(t.zero)
		s.Version = ""
		s.ID = ""
		s.Title = t.name
		s.Properties.Set("type", &jsonschema.Schema{Const: t.name})
		entries = append(entries, s)
	}
	root.Properties.Set("agents", &jsonschema.Schema{
		Type:                 "object",
		Description:          "The declared agents, by name.",
		PropertyNames:        &jsonschema.Schema{Pattern: `^[a-zA-Z_][a-zA-Z0-9_-]*$`},
		AdditionalProperties: &jsonschema.Schema{OneOf: entries},
	})
	b, err := json.MarshalIndent(root, "", "  ")
	if err != nil {
		// The schema is built from this package's own types; it always
		// marshals.
		return nil
	}
	return b
}
