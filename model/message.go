package model

import (
	"encoding/json"
	"fmt"
	"strings"
)

// Role is who a [Message] comes from.
type Role string

// The roles of a conversation.
const (
	RoleSystem    Role = "system"
	RoleUser      Role = "user"
	RoleAssistant Role = "assistant"
	RoleTool      Role = "tool"
)

// Message is one turn of a conversation: a role and its typed parts.
//
// A user message holds [Text] and [Image] parts, an assistant message [Text]
// and [ToolCall] parts, and a tool message one or more [ToolResult] parts.
type Message struct {
	Role  Role
	Parts []Part
}

// Part is one typed piece of a [Message]: [Text], [Image], [Audio],
// [ToolCall] or [ToolResult]. The set is closed.
type Part interface{ isPart() }

// Text is plain text.
type Text struct {
	Text string `json:"text"`
}

// Image is an image given by URL, or inline as bytes with a MIME type.
type Image struct {
	URL      string `json:"url,omitempty"`
	Data     []byte `json:"data,omitempty"`
	MIMEType string `json:"mime_type,omitempty"`
}

// Audio is sound given inline as bytes with a MIME type, such as a tool's
// recording. Providers that take no audio where it appears get a short
// description in text instead.
type Audio struct {
	Data     []byte `json:"data,omitempty"`
	MIMEType string `json:"mime_type,omitempty"`
}

// ToolCall is a model's request to run a tool. Arguments is a JSON object.
type ToolCall struct {
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
}

// ToolResult answers the [ToolCall] with the same CallID. Content is JSON;
// IsError marks a failure the model should read and correct. Parts are
// more of the result beside the JSON: [Text], [Image] or [Audio]. Each
// provider maps them to its wire format where it takes them in tool
// results (Anthropic: text and image blocks; Gemini: inline data), and
// describes them in text where it does not (OpenAI).
type ToolResult struct {
	CallID  string
	Name    string
	Content json.RawMessage
	IsError bool
	Parts   []Part
}

func (Text) isPart()       {}
func (Image) isPart()      {}
func (Audio) isPart()      {}
func (ToolCall) isPart()   {}
func (ToolResult) isPart() {}

// SystemMessage returns a system message holding text.
func SystemMessage(text string) Message {
	return Message{Role: RoleSystem, Parts: []Part{Text{Text: text}}}
}

// UserMessage returns a user message holding text.
func UserMessage(text string) Message {
	return Message{Role: RoleUser, Parts: []Part{Text{Text: text}}}
}

// AssistantMessage returns an assistant message holding text.
func AssistantMessage(text string) Message {
	return Message{Role: RoleAssistant, Parts: []Part{Text{Text: text}}}
}

// ToolMessage returns a tool message holding results.
func ToolMessage(results ...ToolResult) Message {
	parts := make([]Part, len(results))
	for i, r := range results {
		parts[i] = r
	}
	return Message{Role: RoleTool, Parts: parts}
}

// Text returns the concatenation of the message's text parts.
func (m Message) Text() string {
	var n int
	var only string
	for _, p := range m.Parts {
		if t, ok := p.(Text); ok {
			n++
			only = t.Text
		}
	}
	if n <= 1 {
		return only
	}
	var b strings.Builder
	for _, p := range m.Parts {
		if t, ok := p.(Text); ok {
			b.WriteString(t.Text)
		}
	}
	return b.String()
}

// ToolCalls returns the message's tool calls, in order.
func (m Message) ToolCalls() []ToolCall {
	var calls []ToolCall
	for _, p := range m.Parts {
		if c, ok := p.(ToolCall); ok {
			calls = append(calls, c)
		}
	}
	return calls
}

// ToolResults returns the message's tool results, in order.
func (m Message) ToolResults() []ToolResult {
	var rs []ToolResult
	for _, p := range m.Parts {
		if r, ok := p.(ToolResult); ok {
			rs = append(rs, r)
		}
	}
	return rs
}

// MarshalJSON encodes the message with each part tagged by its type
// ("text", "image", "audio", "tool_call", "tool_result"), so conversations
// can be stored and read back.
func (m Message) MarshalJSON() ([]byte, error) {
	parts, err := MarshalParts(m.Parts)
	if err != nil {
		return nil, err
	}
	return json.Marshal(struct {
		Role  Role              `json:"role"`
		Parts []json.RawMessage `json:"parts"`
	}{m.Role, parts})
}

// UnmarshalJSON decodes the form written by [Message.MarshalJSON].
func (m *Message) UnmarshalJSON(data []byte) error {
	var w struct {
		Role  Role              `json:"role"`
		Parts []json.RawMessage `json:"parts"`
	}
	if err := json.Unmarshal(data, &w); err != nil {
		return fmt.Errorf("model: decode message: %w", err)
	}
	parts, err := UnmarshalParts(w.Parts)
	if err != nil {
		return err
	}
	m.Role, m.Parts = w.Role, parts
	return nil
}

// toolResultJSON is a tool result's JSON form, without its type tag.
type toolResultJSON struct {
	CallID  string            `json:"call_id"`
	Name    string            `json:"name"`
	Content json.RawMessage   `json:"content"`
	IsError bool              `json:"is_error,omitempty"`
	Parts   []json.RawMessage `json:"parts,omitempty"`
}

// MarshalJSON encodes the result, its parts tagged by type.
func (r ToolResult) MarshalJSON() ([]byte, error) {
	v, err := r.toJSON()
	if err != nil {
		return nil, err
	}
	return json.Marshal(v)
}

func (r ToolResult) toJSON() (toolResultJSON, error) {
	parts, err := MarshalParts(r.Parts)
	if err != nil {
		return toolResultJSON{}, err
	}
	if len(parts) == 0 {
		parts = nil
	}
	return toolResultJSON{CallID: r.CallID, Name: r.Name, Content: r.Content, IsError: r.IsError, Parts: parts}, nil
}

// UnmarshalJSON decodes the form [ToolResult.MarshalJSON] writes.
func (r *ToolResult) UnmarshalJSON(data []byte) error {
	var v toolResultJSON
	if err := json.Unmarshal(data, &v); err != nil {
		return err
	}
	parts, err := UnmarshalParts(v.Parts)
	if err != nil {
		return err
	}
	if len(parts) == 0 {
		parts = nil
	}
	*r = ToolResult{CallID: v.CallID, Name: v.Name, Content: v.Content, IsError: v.IsError, Parts: parts}
	return nil
}

// MarshalParts encodes parts, each tagged by its type.
func MarshalParts(ps []Part) ([]json.RawMessage, error) {
	parts := make([]json.RawMessage, 0, len(ps))
	for _, p := range ps {
		var v any
		switch p := p.(type) {
		case Text:
			v = struct {
				Type string `json:"type"`
				Text
			}{"text", p}
		case Image:
			v = struct {
				Type string `json:"type"`
				Image
			}{"image", p}
		case Audio:
			v = struct {
				Type string `json:"type"`
				Audio
			}{"audio", p}
		case ToolCall:
			v = struct {
				Type string `json:"type"`
				ToolCall
			}{"tool_call", p}
		case ToolResult:
			j, err := p.toJSON()
			if err != nil {
				return nil, err
			}
			v = struct {
				Type string `json:"type"`
				toolResultJSON
			}{"tool_result", j}
		default:
			return nil, fmt.Errorf("model: cannot encode part of type %T", p)
		}
		b, err := json.Marshal(v)
		if err != nil {
			return nil, err
		}
		parts = append(parts, b)
	}
	return parts, nil
}

// UnmarshalParts decodes parts written by [MarshalParts].
func UnmarshalParts(raws []json.RawMessage) ([]Part, error) {
	parts := make([]Part, 0, len(raws))
	for i, raw := range raws {
		var tag struct {
			Type string `json:"type"`
		}
		if err := json.Unmarshal(raw, &tag); err != nil {
			return nil, fmt.Errorf("model: decode part %d: %w", i, err)
		}
		var p Part
		var err error
		switch tag.Type {
		case "text":
			var v Text
			err = json.Unmarshal(raw, &v)
			p = v
		case "image":
			var v Image
			err = json.Unmarshal(raw, &v)
			p = v
		case "audio":
			var v Audio
			err = json.Unmarshal(raw, &v)
			p = v
		case "tool_call":
			var v ToolCall
			err = json.Unmarshal(raw, &v)
			p = v
		case "tool_result":
			var v ToolResult
			err = v.UnmarshalJSON(raw)
			p = v
		default:
			return nil, fmt.Errorf("model: decode part %d: unknown type %q (want text, image, audio, tool_call or tool_result)", i, tag.Type)
		}
		if err != nil {
			return nil, fmt.Errorf("model: decode %s part %d: %w", tag.Type, i, err)
		}
		parts = append(parts, p)
	}
	return parts, nil
}
