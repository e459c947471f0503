package jsonschema

import (
	"fmt"
	"strings"
)

// The drafts a schema's "$schema" may name. The validator checks draft
// 2020-12 and draft-07; the older and in-between drafts are rewritten to
// the nearest of the two before it sees them.
const (
	draft202012 = "https://json-schema.org/draft/2020-12/schema"
	draft07     = "http://json-schema.org/draft-07/schema#"
)

// draftOf names the draft of a "$schema" value: "2020-12", "2019-09",
// "07", "06", "04", or "" when it names none of them.
func draftOf(uri string) string {
	u := strings.TrimSuffix(strings.TrimPrefix(strings.TrimPrefix(uri, "https://"), "http://"), "#")
	switch u {
	case "", "json-schema.org/draft/2020-12/schema":
		return "2020-12"
	case "json-schema.org/draft/2019-09/schema":
		return "2019-09"
	case "json-schema.org/draft-07/schema":
		return "07"
	case "json-schema.org/draft-06/schema":
		return "06"
	case "json-schema.org/draft-04/schema":
		return "04"
	}
	return ""
}

// normalize rewrites doc, a decoded schema, into draft 2020-12 or draft-07
// as the validator reads them, and reports whether it is draft-07.
//
//   - draft 2020-12 (or no "$schema"): as it is;
//   - draft-07 and draft-06: draft-07 (06 is a subset of 07 for validation);
//   - draft-04: draft-07, with the boolean exclusiveMinimum and
//     exclusiveMaximum turned into the numeric forms;
//   - draft 2019-09: draft 2020-12, with an array "items" turned into
//     "prefixItems" and "additionalItems" into "items"; "$recursiveRef" is
//     refused.
//
// Any other "$schema" is refused, naming the drafts loom checks.
func normalize(doc any) (any, bool, error) {
	obj, ok := doc.(map[string]any)
	if !ok {
		return doc, false, nil // a boolean schema, or not a schema (refused later)
	}
	uri, _ := obj["$schema"].(string)
	if _, has := obj["$schema"]; has {
		if _, isString := obj["$schema"].(string); !isString {
			return nil, false, fmt.Errorf(`"$schema" is not a string`)
		}
	}
	switch draftOf(uri) {
	case "2020-12":
		if uri != "" {
			obj["$schema"] = draft202012 // the validator knows only this spelling
		}
		return doc, false, nil
	case "07", "06":
		obj["$schema"] = draft07
		return doc, true, nil
	case "04":
		obj["$schema"] = draft07
		err := eachSchema(doc, func(s map[string]any) error {
			exclusiveBound(s, "exclusiveMinimum", "minimum")
			exclusiveBound(s, "exclusiveMaximum", "maximum")
			return nil
		})
		return doc, true, err
	case "2019-09":
		obj["$schema"] = draft202012
		err := eachSchema(doc, func(s map[string]any) error {
			if _, has := s["$recursiveRef"]; has {
				return fmt.Errorf(`"$recursiveRef" (draft 2019-09) is not supported: use draft 2020-12's "$dynamicRef"`)
			}
			if arr, ok := s["items"].([]any); ok {
				s["prefixItems"] = arr
				delete(s, "items")
				if add, has := s["additionalItems"]; has {
					s["items"] = add
					delete(s, "additionalItems")
				}
			}
			return nil
		})
		return doc, false, err
	}
	return nil, false, fmt.Errorf(`"$schema" %q names a draft loom does not check: use draft 2020-12 (%s) or draft-07 (%s)`, uri, draft202012, draft07)
}

// exclusiveBound turns draft-04's {"maximum": 5, "exclusiveMaximum": true}
// into {"exclusiveMaximum": 5}.
func exclusiveBound(s map[string]any, exclusive, bound string) {
	b, ok := s[exclusive].(bool)
	if !ok {
		return
	}
	delete(s, exclusive)
	if v, has := s[bound]; has && b {
		s[exclusive] = v
		delete(s, bound)
	}
}

// Keywords whose value is a schema, an array of schemas, or an object of
// schemas: where eachSchema looks for subschemas.
var (
	schemaKeys      = []string{"additionalItems", "additionalProperties", "contains", "contentSchema", "else", "if", "items", "not", "propertyNames", "then", "unevaluatedItems", "unevaluatedProperties"}
	schemaListKeys  = []string{"allOf", "anyOf", "items", "oneOf", "prefixItems"}
	schemaTableKeys = []string{"$defs", "definitions", "dependencies", "dependentSchemas", "patternProperties", "properties"}
)

// eachSchema calls f on doc and every subschema in it that is an object.
func eachSchema(doc any, f func(map[string]any) error) error {
	s, ok := doc.(map[string]any)
	if !ok {
		return nil
	}
	if err := f(s); err != nil {
		return err
	}
	for _, k := range schemaKeys {
		if err := eachSchema(s[k], f); err != nil {
			return err
		}
	}
	for _, k := range schemaListKeys {
		if l, ok := s[k].([]any); ok {
			for _, sub := range l {
				if err := eachSchema(sub, f); err != nil {
					return err
				}
			}
		}
	}
	for _, k := range schemaTableKeys {
		if t, ok := s[k].(map[string]any); ok {
			for _, sub := range t {
				if err := eachSchema(sub, f); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// checkTypes refuses a "type" that names no JSON type.
func checkTypes(doc any) error {
	return eachSchema(doc, func(s map[string]any) error {
		var names []any
		switch t := s["type"].(type) {
		case nil:
			return nil
		case string:
			names = []any{t}
		case []any:
			names = t
		default:
			return fmt.Errorf(`"type" is neither a string nor an array of strings`)
		}
		for _, n := range names {
			switch n {
			case "null", "boolean", "object", "array", "number", "string", "integer":
			default:
				return fmt.Errorf(`"type" %v is not a JSON type: use null, boolean, object, array, number, string or integer`, n)
			}
		}
		return nil
	})
}
