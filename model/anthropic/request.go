package anthropic

import (
	"encoding/base64"
	"encoding/json"
	"fmt"

	"github.com/loomwork/loom/model"
	"github.com/loomwork/loom/model/internal/provider"

	sdk "github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/packages/param"
)

// unsupported lists the options API version 2026-10-21 rejects (it answers
// 400 for temperature, top_p and top_k even at their defaults) or never had.
func unsupported(o model.Options) error {
	var name string
	switch {
	case o.Temperature != nil:
		name = "temperature"
	case o.TopP != nil:
		name = "top_p"
	case o.PresencePenalty != nil:
		name = "presence_penalty"
	case o.FrequencyPenalty != nil:
		name = "frequency_penalty"
	case o.Seed != nil:
		name = "seed"
	default:
		return nil
	}
	return fmt.Errorf("%s: %w: option %s is not accepted by the Anthropic Messages API (version 2026-10-21 has no sampling options, penalties or seed); leave it unset for this provider", ProviderID, model.ErrUnsupported, name)
}

// params maps a request onto the SDK's Messages parameters.
func (m *Model) params(req model.Request) (sdk.MessageNewParams, error) {
	p := sdk.MessageNewParams{Model: sdk.Model(m.name), MaxTokens: m.maxTokens}
	if err := unsupported(req.Options); err != nil {
		return p, err
	}
	if err := provider.CheckPairing(req.Messages); err != nil {
		return p, fmt.Errorf("%s: %w", ProviderID, err)
	}
	system, msgs, err := messages(req.Messages)
	if err != nil {
		return p, fmt.Errorf("%s: %w", ProviderID, err)
	}
	p.System, p.Messages = system, msgs

	for _, t := range req.Tools {
		schema, err := inputSchema(t)
		if err != nil {
			return p, fmt.Errorf("%s: %w", ProviderID, err)
		}
		tool := sdk.ToolParam{Name: t.Name, InputSchema: schema}
		if t.Description != "" {
			tool.Description = param.NewOpt(t.Description)
		}
		p.Tools = append(p.Tools, sdk.ToolUnionParam{OfTool: &tool})
	}
	if len(req.Tools) > 0 {
		switch req.ToolChoice.Mode {
		case model.ToolNone:
			p.ToolChoice = sdk.ToolChoiceUnionParam{OfNone: &sdk.ToolChoiceNoneParam{}}
		case model.ToolRequired:
			p.ToolChoice = sdk.ToolChoiceUnionParam{OfAny: &sdk.ToolChoiceAnyParam{}}
		case model.ToolNamed:
			p.ToolChoice = sdk.ToolChoiceUnionParam{OfTool: &sdk.ToolChoiceToolParam{Name: req.ToolChoice.Name}}
		}
	}
	if rs := req.ResponseSchema; rs != nil {
		var schema map[string]any
		if err := json.Unmarshal(rs.Schema, &schema); err != nil {
			return p, fmt.Errorf("%s: %w: response schema %q is not a JSON object: %w", ProviderID, model.ErrInvalidRequest, rs.Name, err)
		}
		p.OutputConfig = sdk.OutputConfigParam{Format: sdk.JSONOutputFormatParam{Schema: schema}}
	}
	if o := req.Options; o.MaxOutputTokens != nil {
		p.MaxTokens = int64(*o.MaxOutputTokens)
	}
	if len(req.Options.Stop) > 0 {
		p.StopSequences = req.Options.Stop
	}
	return p, nil
}

// messages maps the conversation: system messages become the system prompt,
// tool messages user turns of tool_result blocks, and consecutive messages
// of the same Anthropic role one turn (tool results first, as the API wants).
func messages(in []model.Message) ([]sdk.TextBlockParam, []sdk.MessageParam, error) {
	var system []sdk.TextBlockParam
	out := make([]sdk.MessageParam, 0, len(in))
	for i, m := range in {
		var blocks []sdk.ContentBlockParamUnion
		user := true
		switch m.Role {
		case model.RoleSystem:
			for _, part := range m.Parts {
				t, ok := part.(model.Text)
				if !ok {
					return nil, nil, fmt.Errorf("%w: message %d: a system message holds only text, not %T", model.ErrInvalidRequest, i, part)
				}
				system = append(system, sdk.TextBlockParam{Text: t.Text})
			}
			continue
		case model.RoleUser, model.RoleTool:
			for _, part := range m.Parts {
				b, err := userBlock(i, m.Role, part)
				if err != nil {
					return nil, nil, err
				}
				blocks = append(blocks, b)
			}
		case model.RoleAssistant:
			user = false
			for _, part := range m.Parts {
				switch part := part.(type) {
				case model.Text:
					if part.Text != "" {
						blocks = append(blocks, sdk.NewTextBlock(part.Text))
					}
				case model.ToolCall:
					args := json.RawMessage(part.Arguments)
					if !json.Valid(args) || len(args) == 0 {
						args = json.RawMessage("{}") // never replay arguments the API cannot parse
					}
					blocks = append(blocks, sdk.NewToolUseBlock(part.ID, args, part.Name))
				default:
					return nil, nil, fmt.Errorf("%w: message %d: an assistant message holds text and tool calls, not %T", model.ErrInvalidRequest, i, part)
				}
			}
		default:
			return nil, nil, fmt.Errorf("%w: message %d: unknown role %q", model.ErrInvalidRequest, i, m.Role)
		}
		if len(blocks) == 0 {
			continue
		}
		if n := len(out); n > 0 && isUser(out[n-1]) == user {
			out[n-1] = merge(out[n-1], blocks)
			continue
		}
		if user {
			out = append(out, sdk.NewUserMessage(blocks...))
		} else {
			out = append(out, sdk.NewAssistantMessage(blocks...))
		}
	}
	return system, out, nil
}

func isUser(m sdk.MessageParam) bool { return m.OfUser != nil }

// merge appends blocks to a turn, keeping tool_result blocks ahead of the
// others in a user turn.
func merge(turn sdk.MessageParam, blocks []sdk.ContentBlockParamUnion) sdk.MessageParam {
	if turn.OfAssistant != nil {
		turn.OfAssistant.Content = append(turn.OfAssistant.Content, blocks...)
		return turn
	}
	all := append(turn.OfUser.Content, blocks...)
	results := make([]sdk.ContentBlockParamUnion, 0, len(all))
	var rest []sdk.ContentBlockParamUnion
	for _, b := range all {
		if b.OfToolResult != nil {
			results = append(results, b)
		} else {
			rest = append(rest, b)
		}
	}
	turn.OfUser.Content = append(results, rest...)
	return turn
}

func userBlock(i int, role model.Role, part model.Part) (sdk.ContentBlockParamUnion, error) {
	switch part := part.(type) {
	case model.Text:
		if role == model.RoleUser {
			return sdk.NewTextBlock(part.Text), nil
		}
	case model.Image:
		if role == model.RoleUser {
			return imageBlock(i, part)
		}
	case model.ToolResult:
		r := sdk.ToolResultBlockParam{
			ToolUseID: part.CallID,
			Content:   []sdk.ToolResultBlockParamContentUnion{{OfText: &sdk.TextBlockParam{Text: provider.ContentText(part.Content)}}},
		}
		for _, p := range part.Parts {
			switch p := p.(type) {
			case model.Text:
				r.Content = append(r.Content, sdk.ToolResultBlockParamContentUnion{OfText: &sdk.TextBlockParam{Text: p.Text}})
			case model.Image:
				img, err := imageBlock(i, p)
				if err != nil {
					return sdk.ContentBlockParamUnion{}, err
				}
				r.Content = append(r.Content, sdk.ToolResultBlockParamContentUnion{OfImage: img.OfImage})
			default:
				r.Content = append(r.Content, sdk.ToolResultBlockParamContentUnion{OfText: &sdk.TextBlockParam{Text: provider.DescribeParts([]model.Part{p})}})
			}
		}
		if part.IsError {
			r.IsError = param.NewOpt(true)
		}
		return sdk.ContentBlockParamUnion{OfToolResult: &r}, nil
	}
	return sdk.ContentBlockParamUnion{}, fmt.Errorf("%w: message %d: a %s message cannot hold %T", model.ErrInvalidRequest, i, role, part)
}

func imageBlock(i int, img model.Image) (sdk.ContentBlockParamUnion, error) {
	if err := provider.CheckImage(img); err != nil {
		return sdk.ContentBlockParamUnion{}, fmt.Errorf("message %d: %w", i, err)
	}
	if len(img.Data) == 0 {
		return sdk.NewImageBlock(sdk.URLImageSourceParam{URL: img.URL}), nil
	}
	mime := provider.ImageMIME(img)
	switch sdk.Base64ImageSourceMediaType(mime) {
	case sdk.Base64ImageSourceMediaTypeImageJPEG, sdk.Base64ImageSourceMediaTypeImagePNG, sdk.Base64ImageSourceMediaTypeImageGIF, sdk.Base64ImageSourceMediaTypeImageWebP:
	default:
		return sdk.ContentBlockParamUnion{}, fmt.Errorf("%w: message %d: image type %q: Anthropic accepts image/jpeg, image/png, image/gif and image/webp", model.ErrUnsupported, i, mime)
	}
	return sdk.NewImageBlockBase64(mime, base64.StdEncoding.EncodeToString(img.Data)), nil
}

// inputSchema splits a tool's JSON schema into the SDK's fields: properties,
// required, and everything else as extra fields.
func inputSchema(t model.Tool) (sdk.ToolInputSchemaParam, error) {
	var s sdk.ToolInputSchemaParam
	if len(t.Schema) == 0 {
		s.Properties = map[string]any{}
		return s, nil
	}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(t.Schema, &raw); err != nil {
		return s, fmt.Errorf("%w: tool %q: schema is not a JSON object: %w", model.ErrInvalidRequest, t.Name, err)
	}
	for k, v := range raw {
		switch k {
		case "type":
		case "properties":
			s.Properties = v
		case "required":
			if err := json.Unmarshal(v, &s.Required); err != nil {
				return s, fmt.Errorf("%w: tool %q: schema's required is not a list of names: %w", model.ErrInvalidRequest, t.Name, err)
			}
		default:
			if s.ExtraFields == nil {
				s.ExtraFields = map[string]any{}
			}
			s.ExtraFields[k] = v
		}
	}
	if s.Properties == nil {
		s.Properties = map[string]any{}
	}
	return s, nil
}
