package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"iter"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/loomwork/loom/agent"
	"github.com/loomwork/loom/agent/agentrt"
	"github.com/loomwork/loom/model"
)

// Resource is one resource a server lists.
type Resource struct {
	URI         string `json:"uri"`
	Name        string `json:"name,omitempty"`
	Title       string `json:"title,omitempty"`
	Description string `json:"description,omitempty"`
	MIMEType    string `json:"mime_type,omitempty"`
	Size        int64  `json:"size,omitempty"`
}

// Prompt is one prompt a server lists.
type Prompt struct {
	Name        string           `json:"name"`
	Title       string           `json:"title,omitempty"`
	Description string           `json:"description,omitempty"`
	Arguments   []PromptArgument `json:"arguments,omitempty"`
}

// PromptArgument is an argument a prompt takes.
type PromptArgument struct {
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
	Required    bool   `json:"required,omitempty"`
}

// session runs fn over the current session, dialling again once when the
// session was over or the server refused it.
func (ts *Toolset) session(ctx context.Context, fn func(ctx context.Context, c *conn) error) error {
	c, err := ts.dial(ctx, nil)
	if err != nil {
		return err
	}
	rej := new(rejection)
	err = fn(context.WithValue(ctx, rejectionKey{}, rej), c)
	if err != nil && (gone(err) || rej.Load() || c.ended()) {
		if c, err = ts.dial(ctx, c); err == nil {
			err = fn(ctx, c)
		}
	}
	return err
}

// Resources lists the server's resources.
func (ts *Toolset) Resources(ctx context.Context) ([]Resource, error) {
	var out []Resource
	err := ts.session(ctx, func(ctx context.Context, c *conn) error {
		out = []Resource{}
		for r, err := range c.cs.Resources(ctx, nil) {
			if err != nil {
				return fmt.Errorf("mcp: %s: list resources: %w", ts.where(), err)
			}
			out = append(out, Resource{URI: r.URI, Name: r.Name, Title: r.Title, Description: r.Description, MIMEType: r.MIMEType, Size: r.Size})
		}
		return nil
	})
	return out, err
}

// ReadResource reads the resource at uri: its text, or an image or audio
// blob, as parts (another blob is described, not given).
func (ts *Toolset) ReadResource(ctx context.Context, uri string) ([]model.Part, error) {
	var parts []model.Part
	err := ts.session(ctx, func(ctx context.Context, c *conn) error {
		res, err := c.cs.ReadResource(ctx, &sdk.ReadResourceParams{URI: uri})
		if err != nil {
			return fmt.Errorf("mcp: %s: read resource %s: %w", ts.where(), uri, err)
		}
		parts = parts[:0]
		for _, rc := range res.Contents {
			if p, _ := resourcePart(rc); p != nil {
				parts = append(parts, p)
			}
		}
		return nil
	})
	return parts, err
}

// Prompts lists the server's prompts.
func (ts *Toolset) Prompts(ctx context.Context) ([]Prompt, error) {
	var out []Prompt
	err := ts.session(ctx, func(ctx context.Context, c *conn) error {
		out = []Prompt{}
		for p, err := range c.cs.Prompts(ctx, nil) {
			if err != nil {
				return fmt.Errorf("mcp: %s: list prompts: %w", ts.where(), err)
			}
			pr := Prompt{Name: p.Name, Title: p.Title, Description: p.Description}
			for _, a := range p.Arguments {
				pr.Arguments = append(pr.Arguments, PromptArgument{Name: a.Name, Description: a.Description, Required: a.Required})
			}
			out = append(out, pr)
		}
		return nil
	})
	return out, err
}

// Prompt gets the server's prompt name with args and returns its
// messages: text, images, audio and embedded resources as parts.
func (ts *Toolset) Prompt(ctx context.Context, name string, args map[string]string) ([]model.Message, error) {
	var msgs []model.Message
	err := ts.session(ctx, func(ctx context.Context, c *conn) error {
		res, err := c.cs.GetPrompt(ctx, &sdk.GetPromptParams{Name: name, Arguments: args})
		if err != nil {
			return fmt.Errorf("mcp: %s: get prompt %s: %w", ts.where(), name, err)
		}
		msgs = msgs[:0]
		for _, m := range res.Messages {
			role := model.RoleUser
			if m.Role == "assistant" {
				role = model.RoleAssistant
			}
			if p := contentPart(m.Content); p != nil {
				msgs = append(msgs, model.Message{Role: role, Parts: []model.Part{p}})
			}
		}
		return nil
	})
	return msgs, err
}

// Instructions gets the server's prompt name with args and returns the
// text of its messages, one paragraph each, ready for
// [agent.AIConfig.Instructions]: template actions in the prompt's text are
// escaped, so it is taken as written.
func (ts *Toolset) Instructions(ctx context.Context, name string, args map[string]string) (string, error) {
	msgs, err := ts.Prompt(ctx, name, args)
	if err != nil {
		return "", err
	}
	var paras []string
	for _, m := range msgs {
		if t := m.Text(); t != "" {
			paras = append(paras, t)
		}
	}
	if len(paras) == 0 {
		return "", fmt.Errorf("mcp: %s: prompt %s has no text to use as instructions", ts.where(), name)
	}
	return strings.ReplaceAll(strings.Join(paras, "\n\n"), "{{", `{{"{{"}}`), nil
}

// contentPart maps one piece of content to a part; nil for kinds that have
// none.
func contentPart(c sdk.Content) model.Part {
	switch c := c.(type) {
	case *sdk.TextContent:
		return model.Text{Text: c.Text}
	case *sdk.ImageContent:
		return model.Image{Data: c.Data, MIMEType: c.MIMEType}
	case *sdk.AudioContent:
		return model.Audio{Data: c.Data, MIMEType: c.MIMEType}
	case *sdk.EmbeddedResource:
		p, _ := resourcePart(c.Resource)
		return p
	case *sdk.ResourceLink:
		return model.Text{Text: "resource " + c.URI}
	}
	return nil
}

// resourceTools are the tools that offer the server's resources to a
// model (Config.Resources).
func (ts *Toolset) resourceTools() []agent.Agent {
	return []agent.Agent{
		&localTool{
			name: wireName(ts.cfg.Prefix, "list_resources"),
			desc: "Lists the resources of the MCP server " + ts.where() + ": their URIs, names, descriptions and MIME types. Read one with " + wireName(ts.cfg.Prefix, "read_resource") + ".",
			in:   json.RawMessage(`{"type":"object","properties":{}}`),
			out:  json.RawMessage(`{"type":"object","properties":{"resources":{"type":"array","items":{"type":"object"}}}}`),
			body: func(ctx context.Context, r *agent.Run) (json.RawMessage, error) {
				list, err := ts.Resources(ctx)
				if err != nil {
					return nil, err
				}
				return json.Marshal(map[string]any{"resources": list})
			},
		},
		&localTool{
			name: wireName(ts.cfg.Prefix, "read_resource"),
			desc: "Reads a resource of the MCP server " + ts.where() + " by its URI: its text, or the image or audio it holds.",
			in:   json.RawMessage(`{"type":"object","properties":{"uri":{"type":"string","description":"the resource's URI, as list_resources gives it"}},"required":["uri"]}`),
			out:  json.RawMessage(messageSchema),
			body: func(ctx context.Context, r *agent.Run) (json.RawMessage, error) {
				var in struct {
					URI string `json:"uri"`
				}
				if err := json.Unmarshal(r.Input, &in); err != nil || in.URI == "" {
					return nil, fmt.Errorf("read_resource: give the resource's uri, as list_resources gives it")
				}
				parts, err := ts.ReadResource(ctx, in.URI)
				if err != nil {
					return nil, err
				}
				var texts []string
				media := false
				for _, p := range parts {
					if t, ok := p.(model.Text); ok {
						texts = append(texts, t.Text)
					} else {
						media = true
					}
				}
				if media {
					agentrt.SetResultParts(r, parts...)
				}
				return json.Marshal(map[string]string{"message": strings.Join(texts, "\n")})
			},
		},
	}
}

// localTool is a tool loom adds beside the server's own.
type localTool struct {
	name, desc string
	in, out    json.RawMessage
	body       agent.Body
}

// Info returns the tool's name, description and schemas.
func (t *localTool) Info() agent.Info {
	return agent.Info{Name: t.name, Description: t.desc, InputSchema: t.in, OutputSchema: t.out}
}

// Run runs the tool.
func (t *localTool) Run(ctx context.Context, input json.RawMessage) iter.Seq2[agent.Event, error] {
	return agentrt.Execute(ctx, t, input, t.body)
}
