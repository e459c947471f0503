// Package jsonschema compiles JSON Schemas and checks JSON data against
// them, naming each broken rule with its place, for every part of loom
// that validates what a model, a user or a project file sent: agents'
// inputs and outputs, answers to questions, host tool arguments in the
// sandbox, MCP tool arguments and elicitation answers, spec functions'
// inputs. It is the one place that does: it wraps
// santhosh-tekuri/jsonschema (draft 2020-12 unless a schema's $schema
// names another).
//
// That library compiles its meta-schemas in its package init, a few
// milliseconds in every program that links it; the sandbox's worker
// process does not (its host tool arguments are checked in the parent).
package jsonschema

import (
	"bytes"
	"errors"
	"fmt"
	"strings"

	validator "github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
)

// ErrNotJSON marks a schema or data that is not JSON.
var ErrNotJSON = errors.New("not valid JSON")

// Schema is a compiled schema, safe for concurrent use.
type Schema struct {
	v *validator.Schema
}

// Compile compiles the schema raw. Its error wraps [ErrNotJSON] when raw
// is not JSON, and says "does not compile" when raw is not a schema.
func Compile(raw []byte) (*Schema, error) {
	doc, err := validator.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return nil, fmt.Errorf("schema is %w: %w", ErrNotJSON, err)
	}
	c := validator.NewCompiler()
	const loc = "mem:///schema.json"
	if err := c.AddResource(loc, doc); err != nil {
		return nil, fmt.Errorf("schema: %w", err)
	}
	v, err := c.Compile(loc)
	if err != nil {
		return nil, fmt.Errorf("schema does not compile: %w", err)
	}
	return &Schema{v: v}, nil
}

// Issue is one rule the data breaks.
type Issue struct {
	// Path is where, as the names and indexes from the root: empty for the
	// root itself.
	Path []string
	// Rule is what is wrong, in English: "required", "unknown field",
	// "expected string, got number", or the validator's own words.
	Rule string
}

// Check returns the rules data breaks, nil when it meets the schema. A
// missing required field and an unknown field are each an issue at the
// field's own path. Its error wraps [ErrNotJSON] when data is not JSON.
func (s *Schema) Check(data []byte) ([]Issue, error) {
	inst, err := Parse(data)
	if err != nil {
		return nil, err
	}
	return s.CheckValue(inst), nil
}

// Parse decodes the JSON data into the value [Schema.CheckValue] checks:
// objects as map[string]any, arrays as []any, numbers as json.Number
// (exact), strings, booleans and nil; where an object repeats a key, the
// last value wins. Its error wraps [ErrNotJSON]. A caller that also needs
// the data as a Go value converts this one instead of decoding the text
// again.
func Parse(data []byte) (any, error) {
	inst, err := validator.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrNotJSON, err)
	}
	return inst, nil
}

// CheckValue returns the rules v breaks, nil when it meets the schema. v
// is a value as [Parse] returns it.
func (s *Schema) CheckValue(v any) []Issue {
	err := s.v.Validate(v)
	if err == nil {
		return nil
	}
	var ve *validator.ValidationError
	if !errors.As(err, &ve) {
		return []Issue{{Rule: err.Error()}}
	}
	var issues []Issue
	collect(ve, &issues)
	return issues
}

var english = message.NewPrinter(language.English)

func collect(e *validator.ValidationError, out *[]Issue) {
	if len(e.Causes) > 0 {
		for _, c := range e.Causes {
			collect(c, out)
		}
		return
	}
	path := e.InstanceLocation
	at := func(field string) []string { return append(path[:len(path):len(path)], field) }
	switch k := e.ErrorKind.(type) {
	case *kind.Required:
		for _, m := range k.Missing {
			*out = append(*out, Issue{Path: at(m), Rule: "required"})
		}
	case *kind.Type:
		*out = append(*out, Issue{Path: path, Rule: fmt.Sprintf("expected %s, got %s", strings.Join(k.Want, " or "), k.Got)})
	case *kind.AdditionalProperties:
		for _, p := range k.Properties {
			*out = append(*out, Issue{Path: at(p), Rule: "unknown field"})
		}
	default:
		*out = append(*out, Issue{Path: path, Rule: e.ErrorKind.LocalizedString(english)})
	}
}
