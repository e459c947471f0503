package server

import (
	"encoding/json"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/loomwork/loom/model"
)

// result maps a served run's end to the call's result. The content is the
// run's result parts (text, image, audio; an image given by URL becomes a
// resource link), or what it set with [SetResultContent], and whatever
// the run added with [AddContent]; with
// neither, or when the tool has an output schema, the output as text too
// (a JSON string unquoted). With an output schema the output is also the
// structured content.
func (st *servedTool) result(r runResult, added, set []sdk.Content) *sdk.CallToolResult {
	res := &sdk.CallToolResult{Content: make([]sdk.Content, 0, len(r.parts)+len(added)+len(set)+1)}
	if set != nil {
		res.Content = append(res.Content, set...)
	} else {
		for _, p := range r.parts {
			if c := contentFor(p); c != nil {
				res.Content = append(res.Content, c)
			}
		}
	}
	res.Content = append(res.Content, added...)
	if len(res.Content) == 0 || st.tool.OutputSchema != nil {
		res.Content = append(res.Content, &sdk.TextContent{Text: outputText(r.out)})
	}
	if st.tool.OutputSchema != nil && len(r.out) > 0 {
		res.StructuredContent = r.out
	}
	return res
}

// contentFor maps one result part to MCP content; nil for parts that are
// not results (tool calls).
func contentFor(p model.Part) sdk.Content {
	switch p := p.(type) {
	case model.Text:
		return &sdk.TextContent{Text: p.Text}
	case model.Image:
		if len(p.Data) == 0 && p.URL != "" {
			return &sdk.ResourceLink{URI: p.URL, Name: "image", MIMEType: p.MIMEType}
		}
		return &sdk.ImageContent{Data: p.Data, MIMEType: p.MIMEType}
	case model.Audio:
		return &sdk.AudioContent{Data: p.Data, MIMEType: p.MIMEType}
	}
	return nil
}

// outputText is a run's output as text: a JSON string unquoted, anything
// else as its JSON.
func outputText(out json.RawMessage) string {
	if len(out) > 0 && out[0] == '"' {
		var s string
		if json.Unmarshal(out, &s) == nil {
			return s
		}
	}
	return string(out)
}
