package provider

import (
	"encoding/base64"
	"encoding/json"
	"fmt"

	"github.com/loomwork/loom/model"
)

// ResultText returns a tool result's content as the text a provider without
// structured tool results receives: a JSON string is sent as its value, any
// other JSON as it is. A failed call (IsError) is wrapped as {"error": ...}
// so the model can tell a failure from an answer, unless its content already
// is such an object, as agents send it. Empty content becomes "null".
func ResultText(r model.ToolResult) string {
	content := r.Content
	if len(content) == 0 {
		content = json.RawMessage("null")
	}
	if r.IsError && !hasErrorKey(content) {
		b, err := json.Marshal(struct {
			Error json.RawMessage `json:"error"`
		}{content})
		if err != nil { // content is not valid JSON: send it as a string
			b, _ = json.Marshal(struct {
				Error string `json:"error"`
			}{string(content)})
		}
		return string(b)
	}
	return ContentText(content)
}

// ContentText returns JSON content as text: a JSON string as its value,
// anything else as it is, and nothing as "null".
func ContentText(content json.RawMessage) string {
	if len(content) == 0 {
		return "null"
	}
	var s string
	if content[0] == '"' && json.Unmarshal(content, &s) == nil {
		return s
	}
	return string(content)
}

// hasErrorKey reports whether content is a JSON object with an "error"
// field, the form agents already give failed calls.
func hasErrorKey(content json.RawMessage) bool {
	var obj map[string]json.RawMessage
	if json.Unmarshal(content, &obj) != nil {
		return false
	}
	_, ok := obj["error"]
	return ok
}

// ResultValue returns a tool result's content as a JSON object, for providers
// whose tool results are objects (Gemini): an object is kept, anything else
// is wrapped as {"output": ...}, and a failure as {"error": ...} unless it
// already is such an object.
func ResultValue(r model.ToolResult) map[string]any {
	var v any
	if len(r.Content) > 0 {
		if err := json.Unmarshal(r.Content, &v); err != nil {
			v = string(r.Content)
		}
	}
	m, isMap := v.(map[string]any)
	if r.IsError {
		if _, ok := m["error"]; isMap && ok {
			return m
		}
		return map[string]any{"error": v}
	}
	if isMap {
		return m
	}
	return map[string]any{"output": v}
}

// CheckPairing checks that every tool result answers a tool call made
// earlier in the conversation and that every call has an id, so a provider
// gets a conversation it accepts rather than answering HTTP 400.
func CheckPairing(msgs []model.Message) error {
	calls := map[string]bool{}
	for i, m := range msgs {
		for _, p := range m.Parts {
			switch p := p.(type) {
			case model.ToolCall:
				if p.ID == "" {
					return fmt.Errorf("%w: message %d: tool call %q has no id", model.ErrInvalidRequest, i, p.Name)
				}
				calls[p.ID] = true
			case model.ToolResult:
				if p.CallID == "" {
					return fmt.Errorf("%w: message %d: tool result for %q has no call id: set CallID to the id of the tool call it answers", model.ErrInvalidRequest, i, p.Name)
				}
				if !calls[p.CallID] {
					return fmt.Errorf("%w: message %d: tool result answers call %q, but no earlier assistant message made a tool call with that id", model.ErrInvalidRequest, i, p.CallID)
				}
			}
		}
	}
	return nil
}

// DataURL returns an inline image as a data: URL.
func DataURL(img model.Image) string {
	return "data:" + ImageMIME(img) + ";base64," + base64.StdEncoding.EncodeToString(img.Data)
}

// ImageMIME returns the image's MIME type, sniffing the bytes when it is not
// given.
func ImageMIME(img model.Image) string {
	if img.MIMEType != "" {
		return img.MIMEType
	}
	return sniffImage(img.Data)
}

func sniffImage(b []byte) string {
	switch {
	case len(b) >= 8 && string(b[:8]) == "\x89PNG\r\n\x1a\n":
		return "image/png"
	case len(b) >= 3 && b[0] == 0xFF && b[1] == 0xD8 && b[2] == 0xFF:
		return "image/jpeg"
	case len(b) >= 6 && (string(b[:6]) == "GIF87a" || string(b[:6]) == "GIF89a"):
		return "image/gif"
	case len(b) >= 12 && string(b[:4]) == "RIFF" && string(b[8:12]) == "WEBP":
		return "image/webp"
	}
	return "application/octet-stream"
}

// CheckImage checks that an image has either a URL or bytes, not neither.
func CheckImage(img model.Image) error {
	if img.URL == "" && len(img.Data) == 0 {
		return fmt.Errorf("%w: image has neither URL nor data", model.ErrInvalidRequest)
	}
	return nil
}

// DescribeParts returns the text a provider sends for a tool result's
// parts where it takes only text: text parts as they are, images and audio
// as a short description (type, size or URL), one per line, or "" when
// there are none.
func DescribeParts(parts []model.Part) string {
	var b []byte
	for _, p := range parts {
		if len(b) > 0 {
			b = append(b, '\n')
		}
		switch p := p.(type) {
		case model.Text:
			b = append(b, p.Text...)
		case model.Image:
			if p.URL != "" {
				b = fmt.Appendf(b, "[image: %s]", p.URL)
			} else {
				b = fmt.Appendf(b, "[image: %s, %d bytes, not shown: this provider takes no images in tool results]", p.MIMEType, len(p.Data))
			}
		case model.Audio:
			b = fmt.Appendf(b, "[audio: %s, %d bytes, not played: this provider takes no audio in tool results]", p.MIMEType, len(p.Data))
		default:
			b = fmt.Appendf(b, "[%T]", p)
		}
	}
	return string(b)
}
