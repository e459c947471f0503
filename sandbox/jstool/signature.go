package jstool

import (
	"encoding/json"
	"sort"
	"strconv"
	"strings"

	"github.com/loomwork/loom/sandbox"
)

// Signature renders a host tool as a TypeScript-like declaration of the
// function the code calls, with its description and those of its
// argument's properties as doc comments:
//
//	/** Adds two numbers. */
//	get_sum(args: { a: number; b: number }): Promise<any>
//
// The argument's type comes from the input schema (any without one), the
// Promise's from the output schema. Schemas too deep, $refs and
// constructs TypeScript has no word for are any.
func Signature(t sandbox.HostTool) string {
	var b strings.Builder
	writeDoc(&b, t.Description, "")
	b.WriteString(sandbox.JSName(t.Name))
	b.WriteString("(args")
	in := parseSchema(t.InputSchema)
	if in == nil || !hasRequired(in) {
		b.WriteString("?")
	}
	b.WriteString(": ")
	b.WriteString(tsType(in, "", 0))
	b.WriteString("): Promise<")
	b.WriteString(tsType(parseSchema(t.OutputSchema), "", 0))
	b.WriteString(">")
	return b.String()
}

// Declarations renders the tools as the declaration of the global the
// code sees: declare const tools: { …signatures… }.
func Declarations(tools []sandbox.HostTool) string {
	var b strings.Builder
	b.WriteString("declare const tools: {\n")
	for _, t := range tools {
		b.WriteString("  ")
		b.WriteString(strings.ReplaceAll(Signature(t), "\n", "\n  "))
		b.WriteString(";\n")
	}
	b.WriteString("};")
	return b.String()
}

// schemaNode is the part of a JSON schema a declaration uses.
type schemaNode struct {
	Type                 any                    `json:"type"`
	Description          string                 `json:"description"`
	Properties           map[string]*schemaNode `json:"properties"`
	Required             []string               `json:"required"`
	Items                *schemaNode            `json:"items"`
	AdditionalProperties any                    `json:"additionalProperties"`
	Enum                 []any                  `json:"enum"`
	Const                any                    `json:"const"`
	AnyOf                []*schemaNode          `json:"anyOf"`
	OneOf                []*schemaNode          `json:"oneOf"`
	Ref                  string                 `json:"$ref"`

	order []string // property names in the schema's order
}

// UnmarshalJSON keeps the order of the properties, which is the order a
// model reads them in.
func (n *schemaNode) UnmarshalJSON(data []byte) error {
	type plain schemaNode
	if err := json.Unmarshal(data, (*plain)(n)); err != nil {
		return err
	}
	var raw struct {
		Properties json.RawMessage `json:"properties"`
	}
	if json.Unmarshal(data, &raw) == nil && len(raw.Properties) > 0 {
		dec := json.NewDecoder(strings.NewReader(string(raw.Properties)))
		if _, err := dec.Token(); err == nil {
			for dec.More() {
				k, err := dec.Token()
				if err != nil {
					break
				}
				if key, ok := k.(string); ok {
					n.order = append(n.order, key)
				}
				var skip json.RawMessage
				if dec.Decode(&skip) != nil {
					break
				}
			}
		}
	}
	if len(n.order) != len(n.Properties) { // not an object, or odd JSON: sort
		n.order = n.order[:0]
		for k := range n.Properties {
			n.order = append(n.order, k)
		}
		sort.Strings(n.order)
	}
	return nil
}

func parseSchema(raw json.RawMessage) *schemaNode {
	if len(raw) == 0 {
		return nil
	}
	var n schemaNode
	if json.Unmarshal(raw, &n) != nil {
		return nil
	}
	return &n
}

func hasRequired(n *schemaNode) bool { return len(n.Required) > 0 }

// maxTypeDepth bounds the nesting a declaration spells out.
const maxTypeDepth = 6

// isIdent reports whether s is an ASCII JavaScript identifier: a letter,
// '_' or '$', then letters, digits, '_' or '$'.
func isIdent(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '_', c == '$', 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z':
		case i > 0 && '0' <= c && c <= '9':
		default:
			return false
		}
	}
	return true
}

// tsType renders n as a type; indent is the indentation of the line it
// starts on.
func tsType(n *schemaNode, indent string, depth int) string {
	if n == nil || n.Ref != "" || depth > maxTypeDepth {
		return "any"
	}
	if n.Const != nil {
		return literal(n.Const)
	}
	if len(n.Enum) > 0 {
		parts := make([]string, len(n.Enum))
		for i, v := range n.Enum {
			parts[i] = literal(v)
		}
		return strings.Join(parts, " | ")
	}
	if alts := append(append([]*schemaNode(nil), n.AnyOf...), n.OneOf...); len(alts) > 0 {
		parts := make([]string, len(alts))
		for i, a := range alts {
			parts[i] = tsType(a, indent, depth+1)
		}
		return strings.Join(parts, " | ")
	}
	switch t := n.Type.(type) {
	case []any:
		parts := make([]string, 0, len(t))
		for _, x := range t {
			if s, ok := x.(string); ok {
				c := *n
				c.Type = s
				parts = append(parts, tsType(&c, indent, depth))
			}
		}
		if len(parts) == 0 {
			return "any"
		}
		return strings.Join(parts, " | ")
	case string:
		switch t {
		case "string":
			return "string"
		case "number", "integer":
			return "number"
		case "boolean":
			return "boolean"
		case "null":
			return "null"
		case "array":
			item := tsType(n.Items, indent, depth+1)
			if strings.ContainsAny(item, " |{") {
				return "Array<" + item + ">"
			}
			return item + "[]"
		case "object":
			return objectType(n, indent, depth)
		}
	case nil:
		if len(n.Properties) > 0 {
			return objectType(n, indent, depth)
		}
	}
	return "any"
}

// objectType renders an object type: on one line when no property has a
// description, otherwise one property a line under its doc comment.
func objectType(n *schemaNode, indent string, depth int) string {
	if len(n.Properties) == 0 {
		if ap, ok := n.AdditionalProperties.(map[string]any); ok {
			raw, _ := json.Marshal(ap)
			return "Record<string, " + tsType(parseSchema(raw), indent, depth+1) + ">"
		}
		return "Record<string, any>"
	}
	required := map[string]bool{}
	for _, r := range n.Required {
		required[r] = true
	}
	multiline := false
	for _, k := range n.order {
		if p := n.Properties[k]; p != nil && p.Description != "" {
			multiline = true
		}
	}
	inner := indent + "  "
	parts := make([]string, 0, len(n.order))
	for _, k := range n.order {
		p := n.Properties[k]
		name := k
		if !isIdent(k) {
			name = strconv.Quote(k)
		}
		if !required[k] {
			name += "?"
		}
		var b strings.Builder
		if multiline && p != nil {
			writeDoc(&b, p.Description, inner)
			b.WriteString(inner)
		}
		b.WriteString(name + ": " + tsType(p, inner, depth+1))
		parts = append(parts, b.String())
	}
	if !multiline {
		return "{ " + strings.Join(parts, "; ") + " }"
	}
	return "{\n" + strings.Join(parts, ";\n") + ";\n" + indent + "}"
}

// writeDoc writes text as a doc comment at indent, if there is any.
func writeDoc(b *strings.Builder, text, indent string) {
	text = strings.TrimSpace(strings.ReplaceAll(text, "*/", "* /"))
	if text == "" {
		return
	}
	lines := strings.Split(text, "\n")
	if len(lines) == 1 {
		b.WriteString(indent + "/** " + lines[0] + " */\n")
		return
	}
	b.WriteString(indent + "/**\n")
	for _, l := range lines {
		b.WriteString(indent + " * " + strings.TrimRight(l, " \t") + "\n")
	}
	b.WriteString(indent + " */\n")
}

func literal(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return "any"
	}
	return string(b)
}
