package server

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"iter"
	"log/slog"
	"strings"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/loomwork/loom/agent"
	"github.com/loomwork/loom/agent/agentrt"
	"github.com/loomwork/loom/model"
)

// The fixture's media: a 1x1 red PNG and a short silent WAV.
var (
	redPixel, _ = base64.StdEncoding.DecodeString("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==")
	silentWAV   = []byte("RIFF$\x00\x00\x00WAVEfmt \x10\x00\x00\x00\x01\x00\x01\x00\x40\x1f\x00\x00\x80\x3e\x00\x00\x02\x00\x10\x00data\x00\x00\x00\x00")
)

// schemaAgent is an agent with a schema given as JSON, for the suite's
// JSON Schema 2020-12 tool.
type schemaAgent struct {
	name, description string
	in                json.RawMessage
	body              agent.Body
}

func (a *schemaAgent) Info() agent.Info {
	return agent.Info{Name: a.name, Description: a.description, InputSchema: a.in}
}

func (a *schemaAgent) Run(ctx context.Context, input json.RawMessage) iter.Seq2[agent.Event, error] {
	return agentrt.Execute(ctx, a, input, a.body)
}

type none struct{}

// fixtureTools are the conformance suite's test tools written as loom
// agents: result parts for media, AddContent for resources, LogHandler for
// log lines, CallRequest for progress, ClientModel for sampling and
// agent.Ask for elicitation.
func fixtureTools() ([]agent.Agent, error) {
	var out []agent.Agent
	var firstErr error
	add := func(a agent.Agent, err error) {
		if err != nil && firstErr == nil {
			firstErr = err
		}
		out = append(out, a)
	}
	add(agent.NewFunc("test_simple_text", "Returns simple text", func(context.Context, none) (string, error) {
		return "This is a simple text response for testing.", nil
	}))
	add(agent.NewFunc("test_image_content", "Returns an image", func(ctx context.Context, _ none) (string, error) {
		agentrt.SetResultParts(agent.CurrentRun(ctx), model.Image{Data: redPixel, MIMEType: "image/png"})
		return "", nil
	}))
	add(agent.NewFunc("test_audio_content", "Returns audio", func(ctx context.Context, _ none) (string, error) {
		agentrt.SetResultParts(agent.CurrentRun(ctx), model.Audio{Data: silentWAV, MIMEType: "audio/wav"})
		return "", nil
	}))
	add(agent.NewFunc("test_embedded_resource", "Returns an embedded resource", func(ctx context.Context, _ none) (string, error) {
		AddContent(ctx, &sdk.EmbeddedResource{Resource: &sdk.ResourceContents{URI: "test://embedded-resource", MIMEType: "text/plain", Text: "This is an embedded resource content."}})
		return "", nil
	}))
	add(agent.NewFunc("test_multiple_content_types", "Returns text, an image and a resource", func(ctx context.Context, _ none) (string, error) {
		agentrt.SetResultParts(agent.CurrentRun(ctx), model.Text{Text: "Multiple content types test:"}, model.Image{Data: redPixel, MIMEType: "image/png"})
		AddContent(ctx, &sdk.EmbeddedResource{Resource: &sdk.ResourceContents{URI: "test://mixed-content-resource", MIMEType: "application/json", Text: `{"test":"data","value":123}`}})
		return "", nil
	}))
	add(agent.NewFunc("test_tool_with_logging", "Logs while it runs", func(ctx context.Context, _ none) (string, error) {
		log := slog.New(LogHandler(nil))
		for i, msg := range []string{"Tool execution started", "Tool processing data", "Tool execution completed"} {
			if i > 0 {
				time.Sleep(50 * time.Millisecond)
			}
			log.InfoContext(ctx, msg)
		}
		return "Logging completed", nil
	}))
	add(agent.NewFunc("test_error_handling", "Always fails", func(context.Context, none) (string, error) {
		return "", fmt.Errorf("This tool intentionally returns an error for testing") //nolint:staticcheck // the suite's text
	}))
	add(agent.NewFunc("test_tool_with_progress", "Reports progress", func(ctx context.Context, _ none) (string, error) {
		req := CallRequest(ctx)
		for i, p := range []float64{0, 50, 100} {
			if i > 0 {
				time.Sleep(50 * time.Millisecond)
			}
			if tok := req.Params.GetProgressToken(); tok != nil {
				_ = req.Session.NotifyProgress(ctx, &sdk.ProgressNotificationParams{ProgressToken: tok, Progress: p, Total: 100})
			}
		}
		return "Progress completed", nil
	}))
	type prompt struct {
		Prompt string `json:"prompt"`
	}
	add(agent.NewFunc("test_sampling", "Asks the client's model", func(ctx context.Context, in prompt) (string, error) {
		resp, err := model.Generate(ctx, ClientModel(), model.Request{Messages: []model.Message{model.UserMessage(in.Prompt)}, Options: model.Options{MaxOutputTokens: model.Ptr(100)}})
		if err != nil {
			return "", err
		}
		return "LLM response: " + resp.Message.Text(), nil
	}))
	type message struct {
		Message string `json:"message"`
	}
	ask := func(ctx context.Context, msg, schema, prefix string) (string, error) {
		ans, err := agent.Ask(ctx, "input", map[string]any{"message": msg}, json.RawMessage(schema))
		if err != nil {
			return "", err
		}
		return prefix + "action=accept, content=" + string(ans), nil
	}
	add(agent.NewFunc("test_elicitation", "Asks the user", func(ctx context.Context, in message) (string, error) {
		return ask(ctx, in.Message, `{"type":"object","properties":{"username":{"type":"string","description":"User's response"},"email":{"type":"string","description":"User's email address"}},"required":["username","email"]}`, "User response: ")
	}))
	add(agent.NewFunc("test_elicitation_sep1034_defaults", "Asks with defaults", func(ctx context.Context, _ none) (string, error) {
		return ask(ctx, "Please review your details", `{"type":"object","properties":{"name":{"type":"string","default":"John Doe"},"age":{"type":"integer","default":30},"score":{"type":"number","default":95.5},"status":{"type":"string","enum":["active","inactive","pending"],"default":"active"},"verified":{"type":"boolean","default":true}}}`, "mcp.Elicitation completed: ")
	}))
	add(agent.NewFunc("test_elicitation_sep1330_enums", "Asks with enums", func(ctx context.Context, _ none) (string, error) {
		return ask(ctx, "Pick options", `{"type":"object","properties":{
			"untitledSingle":{"type":"string","enum":["option1","option2","option3"]},
			"titledSingle":{"type":"string","oneOf":[{"const":"value1","title":"First Option"},{"const":"value2","title":"Second Option"},{"const":"value3","title":"Third Option"}]},
			"legacyEnum":{"type":"string","enum":["opt1","opt2","opt3"],"enumNames":["Option One","Option Two","Option Three"]},
			"untitledMulti":{"type":"array","items":{"type":"string","enum":["option1","option2","option3"]}},
			"titledMulti":{"type":"array","items":{"anyOf":[{"const":"value1","title":"First Choice"},{"const":"value2","title":"Second Choice"},{"const":"value3","title":"Third Choice"}]}}}}`, "mcp.Elicitation completed: ")
	}))
	out = append(out, &schemaAgent{name: "json_schema_2020_12_tool", description: "Tool with JSON Schema 2020-12 features",
		in:   json.RawMessage(`{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object","$defs":{"address":{"type":"object","properties":{"street":{"type":"string"},"city":{"type":"string"}}}},"properties":{"name":{"type":"string"},"address":{"$ref":"#/$defs/address"}},"additionalProperties":false}`),
		body: func(_ context.Context, r *agent.Run) (json.RawMessage, error) { return r.Input, nil }})
	return out, firstErr
}

// conformanceServer is a server built with loom's API that offers the
// conformance suite's tools, resources and prompts.
func conformanceServer() (*Server, error) {
	tools, err := fixtureTools()
	if err != nil {
		return nil, err
	}
	s, err := New(Config{Name: "loom-conformance", Agents: tools})
	if err != nil {
		return nil, err
	}
	text := func(uri, mime, text string) ReadFunc {
		return func(context.Context, string) ([]*sdk.ResourceContents, error) {
			return []*sdk.ResourceContents{{URI: uri, MIMEType: mime, Text: text}}, nil
		}
	}
	errs := []error{
		s.AddResource(&sdk.Resource{URI: "test://static-text", Name: "static-text", Description: "A static text resource", MIMEType: "text/plain"}, text("test://static-text", "text/plain", "This is the content of the static text resource.")),
		s.AddResource(&sdk.Resource{URI: "test://static-binary", Name: "static-binary", Description: "A static binary resource", MIMEType: "image/png"}, func(context.Context, string) ([]*sdk.ResourceContents, error) {
			return []*sdk.ResourceContents{{URI: "test://static-binary", MIMEType: "image/png", Blob: redPixel}}, nil
		}),
		s.AddResource(&sdk.Resource{URI: "test://watched-resource", Name: "watched-resource", Description: "A resource to subscribe to", MIMEType: "text/plain"}, text("test://watched-resource", "text/plain", "Watched resource content")),
		s.AddResourceTemplate(&sdk.ResourceTemplate{URITemplate: "test://template/{id}/data", Name: "template", Description: "A templated resource", MIMEType: "application/json"}, func(_ context.Context, uri string) ([]*sdk.ResourceContents, error) {
			id := strings.TrimSuffix(strings.TrimPrefix(uri, "test://template/"), "/data")
			b, _ := json.Marshal(map[string]any{"id": id, "templateTest": true, "data": "Data for ID: " + id})
			return []*sdk.ResourceContents{{URI: uri, MIMEType: "application/json", Text: string(b)}}, nil
		}, func(_ context.Context, _, prefix string, _ map[string]string) ([]string, error) {
			return []string{"123", "456"}, nil
		}),
		s.AddPrompt(&sdk.Prompt{Name: "test_simple_prompt", Description: "A simple prompt"}, func(context.Context, *sdk.GetPromptRequest) (*sdk.GetPromptResult, error) {
			return &sdk.GetPromptResult{Messages: []*sdk.PromptMessage{{Role: "user", Content: &sdk.TextContent{Text: "This is a simple prompt for testing."}}}}, nil
		}, nil),
		s.AddPrompt(&sdk.Prompt{Name: "test_prompt_with_arguments", Description: "A prompt with arguments", Arguments: []*sdk.PromptArgument{{Name: "arg1", Description: "First test argument", Required: true}, {Name: "arg2", Description: "Second test argument", Required: true}}}, func(_ context.Context, req *sdk.GetPromptRequest) (*sdk.GetPromptResult, error) {
			a := req.Params.Arguments
			return &sdk.GetPromptResult{Messages: []*sdk.PromptMessage{{Role: "user", Content: &sdk.TextContent{Text: fmt.Sprintf("Prompt with arguments: arg1='%s', arg2='%s'", a["arg1"], a["arg2"])}}}}, nil
		}, func(_ context.Context, _, prefix string, _ map[string]string) ([]string, error) {
			var out []string
			for _, v := range []string{"paris", "park", "party", "london"} {
				if strings.HasPrefix(v, prefix) {
					out = append(out, v)
				}
			}
			return out, nil
		}),
		s.AddPrompt(&sdk.Prompt{Name: "test_prompt_with_embedded_resource", Description: "A prompt with an embedded resource", Arguments: []*sdk.PromptArgument{{Name: "resourceUri", Description: "The resource to embed", Required: true}}}, func(_ context.Context, req *sdk.GetPromptRequest) (*sdk.GetPromptResult, error) {
			uri := req.Params.Arguments["resourceUri"]
			return &sdk.GetPromptResult{Messages: []*sdk.PromptMessage{
				{Role: "user", Content: &sdk.EmbeddedResource{Resource: &sdk.ResourceContents{URI: uri, MIMEType: "text/plain", Text: "Embedded resource content for testing."}}},
				{Role: "user", Content: &sdk.TextContent{Text: "Please process the embedded resource above."}},
			}}, nil
		}, nil),
		s.AddPrompt(&sdk.Prompt{Name: "test_prompt_with_image", Description: "A prompt with an image"}, func(context.Context, *sdk.GetPromptRequest) (*sdk.GetPromptResult, error) {
			return &sdk.GetPromptResult{Messages: []*sdk.PromptMessage{
				{Role: "user", Content: &sdk.ImageContent{Data: redPixel, MIMEType: "image/png"}},
				{Role: "user", Content: &sdk.TextContent{Text: "Please analyze the image above."}},
			}}, nil
		}, nil),
	}
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return s, nil
}
