// Package jsonschema compiles JSON Schemas and checks JSON data against
// them, naming each broken rule with its place, for every part of loom
// that validates what a model, a user or a project file sent: agents'
// inputs and outputs, answers to questions, host tool arguments in the
// sandbox, MCP tool arguments and elicitation answers, spec functions'
// inputs. It is the one place that does.
//
// Whether data is valid is decided by google/jsonschema-go (draft 2020-12
// unless a schema's "$schema" names draft-07), which the MCP SDK links
// anyway and which does no work at package init. Schemas of other drafts
// are rewritten to the nearest one it checks: draft-06 and draft-04 to
// draft-07 (draft-04's boolean exclusiveMinimum and exclusiveMaximum
// become numbers), draft 2019-09 to 2020-12 (an array "items" becomes
// "prefixItems"); any other "$schema" is refused. Where the data breaks
// the schema, loom's own walk of the schema finds every broken rule at its
// place in the data (the library stops at the first and names the place
// in the schema).
//
// Known differences from santhosh-tekuri/jsonschema, which loom used
// before and which its differential test still runs against:
//
//   - "format" is an annotation in every draft, never an assertion: draft
//     2020-12 says so, and draft-07 leaves it to the implementation (the
//     old library asserted it for draft-07 and older schemas).
//   - A schema is not checked against its draft's meta-schema: a keyword
//     of the wrong JSON type ("minimum": "5"), a "type" that names no JSON
//     type, a "pattern" that is no regular expression and a "$ref" that
//     leads nowhere are refused; a negative "minLength" and unknown
//     keywords are accepted.
//   - draft 2019-09's "$recursiveRef" is refused, and draft-04's "id" does
//     not set a base URI ("$id" does).
//   - Numbers in data are read as float64: integers beyond 2^53 compare
//     with rounding.
package jsonschema

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	gs "github.com/google/jsonschema-go/jsonschema"
)

// ErrNotJSON marks a schema or data that is not JSON.
var ErrNotJSON = errors.New("not valid JSON")

// Schema is a compiled schema, safe for concurrent use.
type Schema struct {
	r      *gs.Resolved
	draft7 bool
}

// Compile compiles the schema raw. Its error wraps [ErrNotJSON] when raw
// is not JSON, and says "does not compile" when raw is not a schema.
func Compile(raw []byte) (*Schema, error) {
	doc, err := decode(raw)
	if err != nil {
		return nil, fmt.Errorf("schema is %w: %w", ErrNotJSON, err)
	}
	switch doc.(type) {
	case map[string]any, bool:
	default:
		return nil, fmt.Errorf("schema does not compile: a schema is a JSON object or a boolean, not %s", jsonTypeName(doc))
	}
	doc, draft7, err := normalize(doc)
	if err != nil {
		return nil, fmt.Errorf("schema does not compile: %w", err)
	}
	if err := checkTypes(doc); err != nil {
		return nil, fmt.Errorf("schema does not compile: %w", err)
	}
	norm, err := json.Marshal(doc)
	if err != nil {
		return nil, fmt.Errorf("schema does not compile: %w", err)
	}
	var s gs.Schema
	if err := json.Unmarshal(norm, &s); err != nil {
		return nil, fmt.Errorf("schema does not compile: %w", err)
	}
	if err := refuseInPlaceCycles(&s); err != nil {
		return nil, fmt.Errorf("schema does not compile: %w", err)
	}
	r, err := s.Resolve(nil)
	if err != nil {
		return nil, fmt.Errorf("schema does not compile: %w", err)
	}
	return &Schema{r: r, draft7: draft7}, nil
}

// decode reads one JSON value, refusing anything after it.
func decode(raw []byte) (any, error) {
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return nil, err
	}
	return v, nil
}

// Issue is one rule the data breaks.
type Issue struct {
	// Path is where, as the names and indexes from the root: empty for the
	// root itself.
	Path []string
	// Rule is what is wrong, in English: "required", "unknown field",
	// "expected string, got number", "maxLength: got 4, want 3".
	Rule string
}

// maxRule bounds a rule taken from the validator's own message.
const maxRule = 300

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

// Parse decodes the JSON data into the value [Schema.CheckValue] checks,
// as json.Unmarshal into an any gives it: objects as map[string]any,
// arrays as []any, numbers as float64, strings, booleans and nil; where an
// object repeats a key, the last value wins. Its error wraps [ErrNotJSON].
// A caller that also needs the data as a Go value converts this one
// instead of decoding the text again.
func Parse(data []byte) (any, error) {
	inst, err := decode(data)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrNotJSON, err)
	}
	return inst, nil
}

// CheckValue returns the rules inst breaks, nil when it meets the schema.
// inst is a value as [Parse] returns it.
func (s *Schema) CheckValue(inst any) []Issue {
	verr := s.validate(inst)
	if verr == nil {
		return nil
	}
	x := &explainer{root: s.r.Schema(), draft7: s.draft7}
	var issues []Issue
	x.explain(x.root, inst, []string{}, &issues)
	if len(issues) == 0 {
		rule := verr.Error()
		switch {
		case strings.Contains(rule, "/unevaluatedProperties"):
			rule = "a field no part of the schema allows (unevaluatedProperties)"
		case strings.Contains(rule, "/unevaluatedItems"):
			rule = "an item no part of the schema allows (unevaluatedItems)"
		}
		if i := strings.LastIndex(rule, ": validating "); i >= 0 {
			rule = rule[i+len(": validating "):] // the innermost schema and its rule
		}
		rule = strings.TrimPrefix(rule, "validating ")
		if len(rule) > maxRule {
			cut := maxRule
			for cut > 0 && !utf8.RuneStart(rule[cut]) {
				cut--
			}
			rule = rule[:cut] + "…"
		}
		issues = []Issue{{Path: []string{}, Rule: rule}}
	}
	return issues
}

// validate runs the validator, turning a panic of its own (it asserts its
// invariants) into an error.
func (s *Schema) validate(inst any) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("the schema validator failed: %v", p)
		}
	}()
	return s.r.Validate(inst)
}
