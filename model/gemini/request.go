package gemini

import (
	"encoding/json"
	"fmt"
	"math"
	"mime"
	"path"
	"strings"

	"github.com/loomwork/loom/model"
	"github.com/loomwork/loom/model/internal/provider"
	"google.golang.org/genai"
)

// synthetic marks the call ids loom makes up for function calls Gemini sent
// without one; they are not sent back.
const synthetic = "gemini-call-"

// config maps a request onto the SDK's contents and generation config. Every
// option is set only when it is set in the request.
func (m *Model) config(req model.Request) ([]*genai.Content, *genai.GenerateContentConfig, error) {
	if err := provider.CheckPairing(req.Messages); err != nil {
		return nil, nil, fmt.Errorf("%s: %w", ProviderID, err)
	}
	cfg := &genai.GenerateContentConfig{}
	contents, system, err := m.contents(req.Messages)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", ProviderID, err)
	}
	if len(system) > 0 {
		cfg.SystemInstruction = &genai.Content{Parts: system}
	}

	if len(req.Tools) > 0 {
		decls := make([]*genai.FunctionDeclaration, 0, len(req.Tools))
		for _, t := range req.Tools {
			d := &genai.FunctionDeclaration{Name: t.Name, Description: t.Description}
			if len(t.Schema) > 0 {
				if !json.Valid(t.Schema) {
					return nil, nil, fmt.Errorf("%s: %w: tool %q: schema is not valid JSON", ProviderID, model.ErrInvalidRequest, t.Name)
				}
				d.ParametersJsonSchema = json.RawMessage(t.Schema)
			}
			decls = append(decls, d)
		}
		cfg.Tools = []*genai.Tool{{FunctionDeclarations: decls}}
		var fc *genai.FunctionCallingConfig
		switch req.ToolChoice.Mode {
		case model.ToolNone:
			fc = &genai.FunctionCallingConfig{Mode: genai.FunctionCallingConfigModeNone}
		case model.ToolRequired:
			fc = &genai.FunctionCallingConfig{Mode: genai.FunctionCallingConfigModeAny}
		case model.ToolNamed:
			fc = &genai.FunctionCallingConfig{Mode: genai.FunctionCallingConfigModeAny, AllowedFunctionNames: []string{req.ToolChoice.Name}}
		}
		if fc != nil {
			cfg.ToolConfig = &genai.ToolConfig{FunctionCallingConfig: fc}
		}
	}
	if rs := req.ResponseSchema; rs != nil {
		if !json.Valid(rs.Schema) {
			return nil, nil, fmt.Errorf("%s: %w: response schema %q is not valid JSON", ProviderID, model.ErrInvalidRequest, rs.Name)
		}
		cfg.ResponseMIMEType = "application/json"
		cfg.ResponseJsonSchema = json.RawMessage(rs.Schema)
	}

	o := req.Options
	if o.Temperature != nil {
		cfg.Temperature = genai.Ptr(float32(*o.Temperature))
	}
	if o.TopP != nil {
		cfg.TopP = genai.Ptr(float32(*o.TopP))
	}
	if o.PresencePenalty != nil {
		cfg.PresencePenalty = genai.Ptr(float32(*o.PresencePenalty))
	}
	if o.FrequencyPenalty != nil {
		cfg.FrequencyPenalty = genai.Ptr(float32(*o.FrequencyPenalty))
	}
	if o.MaxOutputTokens != nil {
		cfg.MaxOutputTokens = int32(min(*o.MaxOutputTokens, math.MaxInt32))
	} else if m.maxTokens > 0 {
		cfg.MaxOutputTokens = int32(min(m.maxTokens, math.MaxInt32))
	}
	if len(o.Stop) > 0 {
		cfg.StopSequences = o.Stop
	}
	if o.Seed != nil {
		if *o.Seed < math.MinInt32 || *o.Seed > math.MaxInt32 {
			return nil, nil, &model.OptionError{Option: "seed", Value: fmt.Sprint(*o.Seed), Range: "a 32-bit integer for Gemini"}
		}
		cfg.Seed = genai.Ptr(int32(*o.Seed))
	}
	return contents, cfg, nil
}

// contents maps the conversation: system messages become the system
// instruction, assistant messages "model" turns, tool results user turns of
// functionResponse parts, and consecutive turns of one role are merged.
func (m *Model) contents(in []model.Message) ([]*genai.Content, []*genai.Part, error) {
	var system []*genai.Part
	names := map[string]string{} // call id → tool name, for results without a name
	out := make([]*genai.Content, 0, len(in))
	for i, msg := range in {
		var parts []*genai.Part
		role := genai.RoleUser
		switch msg.Role {
		case model.RoleSystem:
			for _, p := range msg.Parts {
				t, ok := p.(model.Text)
				if !ok {
					return nil, nil, fmt.Errorf("%w: message %d: a system message holds only text, not %T", model.ErrInvalidRequest, i, p)
				}
				system = append(system, &genai.Part{Text: t.Text})
			}
			continue
		case model.RoleUser:
			for _, p := range msg.Parts {
				switch p := p.(type) {
				case model.Text:
					parts = append(parts, &genai.Part{Text: p.Text})
				case model.Image:
					part, err := imagePart(i, p)
					if err != nil {
						return nil, nil, err
					}
					parts = append(parts, part)
				default:
					return nil, nil, fmt.Errorf("%w: message %d: a user message holds text and images, not %T", model.ErrInvalidRequest, i, p)
				}
			}
		case model.RoleAssistant:
			role = genai.RoleModel
			for _, p := range msg.Parts {
				switch p := p.(type) {
				case model.Text:
					if p.Text != "" {
						parts = append(parts, &genai.Part{Text: p.Text})
					}
				case model.ToolCall:
					names[p.ID] = p.Name
					var args map[string]any
					if json.Unmarshal(p.Arguments, &args) != nil {
						args = map[string]any{} // never replay arguments the API cannot parse
					}
					part := &genai.Part{FunctionCall: &genai.FunctionCall{ID: sentID(p.ID), Name: p.Name, Args: args}}
					part.ThoughtSignature = m.sigs.get(p.ID)
					parts = append(parts, part)
				default:
					return nil, nil, fmt.Errorf("%w: message %d: an assistant message holds text and tool calls, not %T", model.ErrInvalidRequest, i, p)
				}
			}
		case model.RoleTool:
			for _, p := range msg.Parts {
				r, ok := p.(model.ToolResult)
				if !ok {
					return nil, nil, fmt.Errorf("%w: message %d: a tool message holds only tool results, not %T", model.ErrInvalidRequest, i, p)
				}
				name := r.Name
				if name == "" {
					name = names[r.CallID]
				}
				fr := &genai.FunctionResponse{ID: sentID(r.CallID), Name: name, Response: provider.ResultValue(r)}
				var described []model.Part
				for _, rp := range r.Parts {
					switch rp := rp.(type) {
					case model.Image:
						if len(rp.Data) > 0 {
							fr.Parts = append(fr.Parts, genai.NewFunctionResponsePartFromBytes(rp.Data, rp.MIMEType))
							continue
						}
						fr.Parts = append(fr.Parts, genai.NewFunctionResponsePartFromURI(rp.URL, rp.MIMEType))
					case model.Audio:
						fr.Parts = append(fr.Parts, genai.NewFunctionResponsePartFromBytes(rp.Data, rp.MIMEType))
					default:
						described = append(described, rp)
					}
				}
				if text := provider.DescribeParts(described); text != "" {
					fr.Response["parts"] = text
				}
				parts = append(parts, &genai.Part{FunctionResponse: fr})
			}
		default:
			return nil, nil, fmt.Errorf("%w: message %d: unknown role %q", model.ErrInvalidRequest, i, msg.Role)
		}
		if len(parts) == 0 {
			continue
		}
		if n := len(out); n > 0 && out[n-1].Role == role {
			out[n-1].Parts = append(out[n-1].Parts, parts...)
			continue
		}
		out = append(out, &genai.Content{Role: role, Parts: parts})
	}
	return out, system, nil
}

// sentID is the id sent back for a call: none for ids loom made up.
func sentID(id string) string {
	if strings.HasPrefix(id, synthetic) {
		return ""
	}
	return id
}

// imagePart sends bytes inline and a URL as file data (Gemini fetches
// Files API, Cloud Storage and public HTTP URLs).
func imagePart(i int, img model.Image) (*genai.Part, error) {
	if err := provider.CheckImage(img); err != nil {
		return nil, fmt.Errorf("message %d: %w", i, err)
	}
	if len(img.Data) > 0 {
		return &genai.Part{InlineData: &genai.Blob{Data: img.Data, MIMEType: provider.ImageMIME(img)}}, nil
	}
	mt := img.MIMEType
	if mt == "" {
		mt = mime.TypeByExtension(path.Ext(strings.SplitN(img.URL, "?", 2)[0]))
	}
	if mt == "" {
		return nil, fmt.Errorf("%w: message %d: image URL %q: give its MIMEType, Gemini needs one", model.ErrInvalidRequest, i, img.URL)
	}
	return &genai.Part{FileData: &genai.FileData{FileURI: img.URL, MIMEType: mt}}, nil
}
