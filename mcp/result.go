package mcp

import (
	"cmp"
	"encoding/json"
	"fmt"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/loomwork/loom/agent"
	"github.com/loomwork/loom/agent/agentrt"
	"github.com/loomwork/loom/internal/jsonquote"
	"github.com/loomwork/loom/model"
)

// resourcePart maps an embedded or read resource to a part: its text
// (named by its URI), an image or audio blob as such, another blob as a
// note of what it is. text is the part's text, empty for media.
func resourcePart(rc *sdk.ResourceContents) (part model.Part, text string) {
	switch {
	case rc == nil:
		return nil, ""
	case rc.Blob == nil:
		text = "resource " + rc.URI + ":\n" + rc.Text
		return model.Text{Text: text}, text
	case strings.HasPrefix(rc.MIMEType, "image/"):
		return model.Image{Data: rc.Blob, MIMEType: rc.MIMEType}, ""
	case strings.HasPrefix(rc.MIMEType, "audio/"):
		return model.Audio{Data: rc.Blob, MIMEType: rc.MIMEType}, ""
	default:
		text = fmt.Sprintf("resource %s: %d bytes of %s", rc.URI, len(rc.Blob), cmp.Or(rc.MIMEType, "binary data"))
		return model.Text{Text: text}, text
	}
}

// result maps a tool's result to the run's output: structuredContent when
// the tool declares an output schema, else {"message": joined text}; image
// and audio content become the run's result parts, and isError a
// [*ToolError].
func (t *tool) result(r *agent.Run, res *sdk.CallToolResult) (json.RawMessage, error) {
	if len(res.Content) == 1 { // the common case: one text, mapped without the slices below
		if c, ok := res.Content[0].(*sdk.TextContent); ok {
			return t.output(res, c.Text)
		}
	}
	var texts []string
	var parts []model.Part
	media := false
	for _, c := range res.Content {
		switch c := c.(type) {
		case *sdk.TextContent:
			texts = append(texts, c.Text)
			parts = append(parts, model.Text{Text: c.Text})
		case *sdk.ImageContent:
			parts = append(parts, model.Image{Data: c.Data, MIMEType: c.MIMEType})
			media = true
		case *sdk.AudioContent:
			parts = append(parts, model.Audio{Data: c.Data, MIMEType: c.MIMEType})
			media = true
		case *sdk.ResourceLink:
			s := "resource " + c.URI
			if c.Name != "" {
				s += " (" + c.Name + ")"
			}
			texts = append(texts, s)
			parts = append(parts, model.Text{Text: s})
		case *sdk.EmbeddedResource:
			part, text := resourcePart(c.Resource)
			if part == nil {
				continue
			}
			if text != "" {
				texts = append(texts, text)
			} else {
				media = true
			}
			parts = append(parts, part)
		}
	}
	if media && !res.IsError {
		agentrt.SetResultParts(r, parts...)
	}
	return t.output(res, strings.Join(texts, "\n"))
}

// output is the run's output for res, whose content's text is text:
// structuredContent when the tool declares an output schema, else
// {"message": text}; isError makes it a [*ToolError].
func (t *tool) output(res *sdk.CallToolResult, text string) (json.RawMessage, error) {
	if res.IsError {
		return nil, &ToolError{Tool: t.name, Message: text}
	}
	if t.structured && res.StructuredContent != nil {
		if out, ok := appendDecoded(make([]byte, 0, 256), res.StructuredContent); ok {
			return out, nil
		}
		out, err := json.Marshal(res.StructuredContent)
		if err != nil {
			return nil, fmt.Errorf("mcp tool %s: encode its structured content: %w", t.name, err)
		}
		return out, nil
	}
	return messageJSON(text), nil
}

// messageJSON is {"message": text}, the output of a tool without an
// output schema, in the bytes json.Marshal writes for it, in one
// allocation.
func messageJSON(text string) json.RawMessage {
	const prefix = `{"message":`
	b := make([]byte, 0, len(prefix)+len(text)+8)
	b = append(b, prefix...)
	b = jsonquote.Append(b, text, true)
	return append(b, '}')
}
