package spec

import (
	"bytes"
	"cmp"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/loomwork/loom/model"
)

// ErrBadContent is what a function with returns: content fails with when
// its value is not a list of content parts; the error names the part and
// what is wrong with it.
var ErrBadContent = errors.New("bad content")

// contentPart is one content part as a function returns it, MCP's shape.
type contentPart struct {
	Type        string        `json:"type"`
	Text        string        `json:"text"`
	Data        string        `json:"data"`
	MIMEType    string        `json:"mimeType"`
	URI         string        `json:"uri"`
	Name        string        `json:"name"`
	Description string        `json:"description"`
	Resource    *resourcePart `json:"resource"`
}

type resourcePart struct {
	URI      string  `json:"uri"`
	MIMEType string  `json:"mimeType"`
	Text     *string `json:"text"`
	Blob     string  `json:"blob"`
}

// content is a function's value read as content: the parts a model sees
// (text, image, audio; a resource as its text, or a note of what it is),
// the same as MCP content in their order, and the text of the text parts.
type content struct {
	parts []model.Part
	mcp   []sdk.Content
	text  string
}

// contentTypes are the part types a function may return.
const contentTypes = "text, image, audio, resource or resource_link"

// decodeContent reads value, the JSON of a list of content parts.
func decodeContent(value json.RawMessage) (*content, error) {
	var raws []json.RawMessage
	if err := json.Unmarshal(value, &raws); err != nil || raws == nil {
		return nil, fmt.Errorf("%w: the value is %s, not a list of parts: end the code with a list, as [{type: 'text', text: 'hi'}]", ErrBadContent, describeJSON(value))
	}
	c := &content{}
	var texts []string
	for i, raw := range raws {
		var p contentPart
		dec := json.NewDecoder(bytes.NewReader(raw))
		if err := dec.Decode(&p); err != nil {
			return nil, fmt.Errorf("%w: part %d is %s, not an object {type, …}", ErrBadContent, i, describeJSON(raw))
		}
		fail := func(format string, args ...any) error {
			return fmt.Errorf("%w: part %d (%s): %s", ErrBadContent, i, cmp.Or(p.Type, "no type"), fmt.Sprintf(format, args...))
		}
		switch p.Type {
		case "text":
			c.parts = append(c.parts, model.Text{Text: p.Text})
			c.mcp = append(c.mcp, &sdk.TextContent{Text: p.Text})
			texts = append(texts, p.Text)
		case "image", "audio":
			if p.MIMEType == "" || !strings.HasPrefix(p.MIMEType, p.Type+"/") {
				return nil, fail("mimeType is %q: give the media type, as %s/…", p.MIMEType, p.Type)
			}
			data, err := base64.StdEncoding.DecodeString(p.Data)
			if err != nil || len(data) == 0 {
				return nil, fail("data must be the %s's bytes in base64 (btoa of a binary string), and not empty", p.Type)
			}
			if p.Type == "image" {
				c.parts = append(c.parts, model.Image{Data: data, MIMEType: p.MIMEType})
				c.mcp = append(c.mcp, &sdk.ImageContent{Data: data, MIMEType: p.MIMEType})
			} else {
				c.parts = append(c.parts, model.Audio{Data: data, MIMEType: p.MIMEType})
				c.mcp = append(c.mcp, &sdk.AudioContent{Data: data, MIMEType: p.MIMEType})
			}
		case "resource":
			r := p.Resource
			if r == nil || r.URI == "" {
				return nil, fail("give resource: {uri, mimeType, text} (or blob in base64 instead of text)")
			}
			rc := &sdk.ResourceContents{URI: r.URI, MIMEType: r.MIMEType}
			switch {
			case r.Text != nil && r.Blob != "":
				return nil, fail("resource %s has both text and blob: keep one", r.URI)
			case r.Text != nil:
				rc.Text = *r.Text
				texts = append(texts, "resource "+r.URI+":\n"+rc.Text)
			default:
				b, err := base64.StdEncoding.DecodeString(r.Blob)
				if err != nil || len(b) == 0 {
					return nil, fail("resource %s needs text, or blob: its bytes in base64", r.URI)
				}
				rc.Blob = b
			}
			c.parts = append(c.parts, resourceAsPart(rc))
			c.mcp = append(c.mcp, &sdk.EmbeddedResource{Resource: rc})
		case "resource_link":
			if p.URI == "" || p.Name == "" {
				return nil, fail("a resource link needs uri and name")
			}
			s := "resource " + p.URI + " (" + p.Name + ")"
			c.parts = append(c.parts, model.Text{Text: s})
			c.mcp = append(c.mcp, &sdk.ResourceLink{URI: p.URI, Name: p.Name, MIMEType: p.MIMEType, Description: p.Description})
			texts = append(texts, s)
		default:
			return nil, fail("type must be one of %s", contentTypes)
		}
	}
	c.text = strings.Join(texts, "\n")
	return c, nil
}

// resourceAsPart is an embedded resource as a model sees it: an image or
// audio blob as such, text with its URI, another blob as a note.
func resourceAsPart(rc *sdk.ResourceContents) model.Part {
	switch {
	case rc.Blob == nil:
		return model.Text{Text: "resource " + rc.URI + ":\n" + rc.Text}
	case strings.HasPrefix(rc.MIMEType, "image/"):
		return model.Image{Data: rc.Blob, MIMEType: rc.MIMEType}
	case strings.HasPrefix(rc.MIMEType, "audio/"):
		return model.Audio{Data: rc.Blob, MIMEType: rc.MIMEType}
	}
	return model.Text{Text: fmt.Sprintf("resource %s: %d bytes of %s", rc.URI, len(rc.Blob), cmp.Or(rc.MIMEType, "binary data"))}
}

// describeJSON names what a JSON value is, for errors.
func describeJSON(raw json.RawMessage) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return "undefined"
	}
	switch raw[0] {
	case '{':
		return "an object"
	case '[':
		return "a list"
	case '"':
		return "a string"
	case 'n':
		return "null"
	case 't', 'f':
		return "a boolean"
	}
	return "a number"
}
