package model

import (
	"encoding/json"
	"fmt"
	"hash/fnv"
)

// Tool describes a function the model may call. Schema is the JSON schema of
// the call's arguments (an object schema).
type Tool struct {
	Name        string
	Description string
	Schema      json.RawMessage
}

// ValidToolName reports whether name is accepted as a tool name by every
// provider: a letter or underscore, then up to 63 letters, digits, '_' or '-'
// (ASCII). It is a loop, not a regular expression, so that programs that
// link the package compile nothing at start.
func ValidToolName(name string) bool {
	if len(name) == 0 || len(name) > 64 {
		return false
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		switch {
		case c == '_', 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z':
		case i > 0 && (c == '-' || '0' <= c && c <= '9'):
		default:
			return false
		}
	}
	return true
}

// ToolMode says whether and how the model must call tools.
type ToolMode string

// The tool modes. The zero ToolMode is [ToolAuto].
const (
	ToolAuto     ToolMode = ""         // the model decides
	ToolNone     ToolMode = "none"     // the model must not call tools
	ToolRequired ToolMode = "required" // the model must call at least one tool
	ToolNamed    ToolMode = "named"    // the model must call the tool named in ToolChoice.Name
)

// ToolChoice constrains tool calling. The zero value is auto.
type ToolChoice struct {
	Mode ToolMode
	Name string // the tool to call, for ToolNamed
}

// CallTool returns the choice that forces a call of the named tool.
func CallTool(name string) ToolChoice { return ToolChoice{Mode: ToolNamed, Name: name} }

// String returns "auto", "none", "required" or "tool:NAME".
func (c ToolChoice) String() string {
	switch c.Mode {
	case ToolAuto:
		return "auto"
	case ToolNamed:
		return "tool:" + c.Name
	}
	return string(c.Mode)
}

func (c ToolChoice) validate(tools []Tool) error {
	switch c.Mode {
	case ToolAuto, ToolNone:
		return nil
	case ToolRequired:
		if len(tools) == 0 {
			return fmt.Errorf("%w: tool choice %q needs at least one tool", ErrInvalidRequest, c)
		}
		return nil
	case ToolNamed:
		for _, t := range tools {
			if t.Name == c.Name {
				return nil
			}
		}
		return fmt.Errorf("%w: tool choice names %q, which is not among the request's tools", ErrInvalidRequest, c.Name)
	}
	return fmt.Errorf("%w: unknown tool mode %q (want auto, none, required or named)", ErrInvalidRequest, c.Mode)
}

// ToolNameFor returns name when every provider accepts it as a tool name
// ([ValidToolName]), and otherwise a name they all accept made from it:
// each character outside [A-Za-z0-9_-] becomes '_', a leading digit or '-'
// gets a '_' in front, and a name over 64 bytes keeps its first 55 bytes
// and a hash of the whole. Different names may map to the same one; a
// caller offering several tools checks for that.
func ToolNameFor(name string) string {
	if ValidToolName(name) {
		return name
	}
	b := make([]byte, 0, len(name)+1)
	for i := 0; i < len(name); i++ {
		c := name[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9', c == '_', c == '-':
			b = append(b, c)
		default:
			b = append(b, '_')
		}
	}
	if len(b) == 0 || !(b[0] == '_' || b[0] >= 'a' && b[0] <= 'z' || b[0] >= 'A' && b[0] <= 'Z') {
		b = append([]byte{'_'}, b...)
	}
	if len(b) > 64 {
		h := fnv.New32a()
		h.Write([]byte(name))
		b = fmt.Appendf(b[:55], "_%08x", h.Sum32())
	}
	return string(b)
}
