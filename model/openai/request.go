package openai

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/loomwork/loom/model"
	"github.com/loomwork/loom/model/internal/provider"
	sdk "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/packages/param"
	"github.com/openai/openai-go/v3/shared"
)

// params maps a request onto the SDK's Chat Completions parameters. Every
// option is sent only when it is set.
func (m *Model) params(req model.Request) (sdk.ChatCompletionNewParams, error) {
	p := sdk.ChatCompletionNewParams{
		Model:         m.name,
		StreamOptions: sdk.ChatCompletionStreamOptionsParam{IncludeUsage: param.NewOpt(true)},
	}
	if err := provider.CheckPairing(req.Messages); err != nil {
		return p, fmt.Errorf("%s: %w", m.preset.ID, err)
	}
	msgs, err := messages(req.Messages)
	if err != nil {
		return p, fmt.Errorf("%s: %w", m.preset.ID, err)
	}
	if rs := req.ResponseSchema; rs != nil {
		if m.preset.JSONObjectOnly {
			// The provider has only JSON mode: ask for JSON and give the
			// schema in words (the prompt must mention JSON for JSON mode).
			msgs = append([]sdk.ChatCompletionMessageParamUnion{sdk.SystemMessage(schemaInstruction(rs))}, msgs...)
			p.ResponseFormat = sdk.ChatCompletionNewParamsResponseFormatUnion{OfJSONObject: &shared.ResponseFormatJSONObjectParam{}}
		} else {
			js := shared.ResponseFormatJSONSchemaJSONSchemaParam{
				Name:   schemaName(rs.Name),
				Strict: param.NewOpt(true),
				Schema: json.RawMessage(rs.Schema),
			}
			if rs.Description != "" {
				js.Description = param.NewOpt(rs.Description)
			}
			p.ResponseFormat = sdk.ChatCompletionNewParamsResponseFormatUnion{OfJSONSchema: &shared.ResponseFormatJSONSchemaParam{JSONSchema: js}}
		}
	}
	p.Messages = msgs

	for _, t := range req.Tools {
		schema, err := toolSchema(t)
		if err != nil {
			return p, fmt.Errorf("%s: %w", m.preset.ID, err)
		}
		fn := shared.FunctionDefinitionParam{Name: t.Name, Parameters: schema}
		if t.Description != "" {
			fn.Description = param.NewOpt(t.Description)
		}
		p.Tools = append(p.Tools, sdk.ChatCompletionFunctionTool(fn))
	}
	if len(req.Tools) > 0 { // tool_choice without tools is rejected; auto is the default
		switch req.ToolChoice.Mode {
		case model.ToolNone, model.ToolRequired:
			p.ToolChoice = sdk.ChatCompletionToolChoiceOptionUnionParam{OfAuto: param.NewOpt(string(req.ToolChoice.Mode))}
		case model.ToolNamed:
			p.ToolChoice = sdk.ToolChoiceOptionFunctionToolChoice(sdk.ChatCompletionNamedToolChoiceFunctionParam{Name: req.ToolChoice.Name})
		}
	}

	o := req.Options
	if o.Temperature != nil {
		p.Temperature = param.NewOpt(*o.Temperature)
	}
	if o.TopP != nil {
		p.TopP = param.NewOpt(*o.TopP)
	}
	if o.PresencePenalty != nil {
		p.PresencePenalty = param.NewOpt(*o.PresencePenalty)
	}
	if o.FrequencyPenalty != nil {
		p.FrequencyPenalty = param.NewOpt(*o.FrequencyPenalty)
	}
	maxTokens := m.maxTokens
	if o.MaxOutputTokens != nil {
		maxTokens = int64(*o.MaxOutputTokens)
	}
	if maxTokens > 0 {
		if m.preset.LegacyMaxTokens {
			p.MaxTokens = param.NewOpt(maxTokens)
		} else {
			p.MaxCompletionTokens = param.NewOpt(maxTokens)
		}
	}
	if len(o.Stop) > 0 {
		p.Stop = sdk.ChatCompletionNewParamsStopUnion{OfStringArray: o.Stop}
	}
	if o.Seed != nil {
		p.Seed = param.NewOpt(*o.Seed)
	}
	return p, nil
}

func messages(in []model.Message) ([]sdk.ChatCompletionMessageParamUnion, error) {
	out := make([]sdk.ChatCompletionMessageParamUnion, 0, len(in))
	for i, m := range in {
		switch m.Role {
		case model.RoleSystem:
			if err := onlyText(i, m); err != nil {
				return nil, err
			}
			out = append(out, sdk.SystemMessage(m.Text()))
		case model.RoleUser:
			msg, err := userMessage(i, m)
			if err != nil {
				return nil, err
			}
			out = append(out, msg)
		case model.RoleAssistant:
			msg, err := assistantMessage(i, m)
			if err != nil {
				return nil, err
			}
			out = append(out, msg)
		case model.RoleTool:
			for _, part := range m.Parts {
				r, ok := part.(model.ToolResult)
				if !ok {
					return nil, fmt.Errorf("%w: message %d: a tool message holds only tool results, not %T", model.ErrInvalidRequest, i, part)
				}
				text := provider.ResultText(r)
				if extra := provider.DescribeParts(r.Parts); extra != "" {
					text += "\n" + extra
				}
				out = append(out, sdk.ToolMessage(text, r.CallID))
			}
		default:
			return nil, fmt.Errorf("%w: message %d: unknown role %q", model.ErrInvalidRequest, i, m.Role)
		}
	}
	return out, nil
}

func onlyText(i int, m model.Message) error {
	for _, part := range m.Parts {
		if _, ok := part.(model.Text); !ok {
			return fmt.Errorf("%w: message %d: a %s message holds only text, not %T", model.ErrInvalidRequest, i, m.Role, part)
		}
	}
	return nil
}

func userMessage(i int, m model.Message) (sdk.ChatCompletionMessageParamUnion, error) {
	if onlyText(i, m) == nil {
		return sdk.UserMessage(m.Text()), nil
	}
	parts := make([]sdk.ChatCompletionContentPartUnionParam, 0, len(m.Parts))
	for _, part := range m.Parts {
		switch part := part.(type) {
		case model.Text:
			parts = append(parts, sdk.TextContentPart(part.Text))
		case model.Image:
			if err := provider.CheckImage(part); err != nil {
				return sdk.ChatCompletionMessageParamUnion{}, fmt.Errorf("message %d: %w", i, err)
			}
			u := part.URL
			if len(part.Data) > 0 {
				u = provider.DataURL(part)
			}
			parts = append(parts, sdk.ImageContentPart(sdk.ChatCompletionContentPartImageImageURLParam{URL: u}))
		default:
			return sdk.ChatCompletionMessageParamUnion{}, fmt.Errorf("%w: message %d: a user message holds text and images, not %T", model.ErrInvalidRequest, i, part)
		}
	}
	return sdk.UserMessage(parts), nil
}

func assistantMessage(i int, m model.Message) (sdk.ChatCompletionMessageParamUnion, error) {
	var a sdk.ChatCompletionAssistantMessageParam
	for _, part := range m.Parts {
		switch part := part.(type) {
		case model.Text:
		case model.ToolCall:
			args := string(part.Arguments)
			if args == "" {
				args = "{}"
			}
			a.ToolCalls = append(a.ToolCalls, sdk.ChatCompletionMessageToolCallUnionParam{OfFunction: &sdk.ChatCompletionMessageFunctionToolCallParam{
				ID:       part.ID,
				Function: sdk.ChatCompletionMessageFunctionToolCallFunctionParam{Name: part.Name, Arguments: args},
			}})
		default:
			return sdk.ChatCompletionMessageParamUnion{}, fmt.Errorf("%w: message %d: an assistant message holds text and tool calls, not %T", model.ErrInvalidRequest, i, part)
		}
	}
	if text := m.Text(); text != "" {
		a.Content.OfString = param.NewOpt(text)
	}
	return sdk.ChatCompletionMessageParamUnion{OfAssistant: &a}, nil
}

// toolSchema decodes a tool's JSON schema; an empty schema means a tool
// without arguments.
func toolSchema(t model.Tool) (shared.FunctionParameters, error) {
	if len(t.Schema) == 0 {
		return shared.FunctionParameters{"type": "object", "properties": map[string]any{}}, nil
	}
	var schema shared.FunctionParameters
	if err := json.Unmarshal(t.Schema, &schema); err != nil {
		return nil, fmt.Errorf("%w: tool %q: schema is not a JSON object: %w", model.ErrInvalidRequest, t.Name, err)
	}
	return schema, nil
}

// schemaName makes a response schema name OpenAI accepts:
// ^[a-zA-Z0-9_-]{1,64}$.
func schemaName(name string) string {
	name = strings.Map(func(r rune) rune {
		if r == '_' || r == '-' || 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9' {
			return r
		}
		return '_'
	}, name)
	if name == "" {
		return "response"
	}
	if len(name) > 64 {
		name = name[:64]
	}
	return name
}

func schemaInstruction(rs *model.ResponseSchema) string {
	s := "Answer with a single JSON object, and nothing else, that matches this JSON schema"
	if rs.Description != "" {
		s += " (" + rs.Description + ")"
	}
	return s + ":\n" + string(rs.Schema)
}
